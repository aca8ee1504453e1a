package io.jrunc.spec;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * The few facts about the running host that change what {@code runc spec} writes, read from /proc and
 * /sys without native calls.
 */
final class HostFacts {

    private static final Path CGROUP_ROOT = Path.of("/sys/fs/cgroup");
    private static final Path PROC_STATUS = Path.of("/proc/self/status");

    private HostFacts() {
    }

    /**
     * True when /sys/fs/cgroup is a cgroup2 mount (the unified hierarchy). runc tests the statfs magic
     * of the same directory; the file store type is read from the same mount table.
     */
    static boolean cgroupV2Unified() throws IOException {
        try {
            return Files.getFileStore(CGROUP_ROOT).type().equals("cgroup2");
        } catch (NoSuchFileException e) {
            return false;
        }
    }

    static long effectiveUid() throws IOException {
        return effectiveId("Uid:");
    }

    static long effectiveGid() throws IOException {
        return effectiveId("Gid:");
    }

    /** /proc/self/status lists real, effective, saved and filesystem ids; the second is the effective one. */
    private static long effectiveId(String label) throws IOException {
        for (String line : Files.readAllLines(PROC_STATUS)) {
            if (line.startsWith(label)) {
                return Long.parseLong(line.substring(label.length()).trim().split("\\s+")[1]);
            }
        }
        throw new IOException(PROC_STATUS + " has no " + label + " line");
    }
}
