package io.jrunc.cgroups;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * One line of /proc/[pid]/cgroup (cgroups(7)): {@code hierarchy-ID:controller-list:cgroup-path}.
 * The controller list is the key this module uses for a hierarchy everywhere ({@code memory},
 * {@code cpu,cpuacct}, {@code name=systemd}); the cgroup v2 hierarchy is the line with ID 0 and an
 * empty list, so its key is the empty string, as in runc's path maps. The path is relative to the
 * reader's cgroup namespace and to the hierarchy's root, not to any mount.
 */
record CgroupMembership(int hierarchyId, String hierarchyKey, String path) {

    static List<CgroupMembership> parse(String text) throws CgroupException {
        List<CgroupMembership> memberships = new ArrayList<>();
        for (String line : text.split("\n")) {
            if (line.isBlank()) {
                continue;
            }
            String[] parts = line.split(":", 3); // the path itself may contain ':'
            if (parts.length < 3) {
                throw new CgroupException("invalid cgroup entry: must contain at least two colons: " + line);
            }
            try {
                memberships.add(new CgroupMembership(Integer.parseInt(parts[0]), parts[1], parts[2]));
            } catch (NumberFormatException e) {
                throw new CgroupException("invalid cgroup entry: bad hierarchy id: " + line);
            }
        }
        return memberships;
    }

    /** The cgroups of a process or thread, e.g. {@code /proc/self/cgroup}, {@code /proc/self/task/<tid>/cgroup}. */
    static List<CgroupMembership> read(Path procCgroupFile) throws CgroupException {
        try {
            return parse(Files.readString(procCgroupFile));
        } catch (IOException e) {
            throw new CgroupException("cannot read " + procCgroupFile + ": " + e.getMessage(), e);
        }
    }

    boolean isUnified() {
        return hierarchyId == 0 && hierarchyKey.isEmpty();
    }
}
