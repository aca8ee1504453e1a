package io.jrunc.runtime.init;

import io.jrunc.spec.LinuxIDMapping;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;

/**
 * The id maps of a process's new user namespace, written from outside as /proc/PID/setgroups,
 * gid_map and uid_map (user_namespaces(7)). The kernel takes each map in one write, once; setgroups
 * must say "deny" before an unprivileged writer may write gid_map, and may no longer change after.
 */
public final class IdMaps {
    private IdMaps() {}

    /** What /proc/PID/setgroups is set to before the maps: left as the kernel has it, or "deny". */
    public enum Setgroups { KEEP, DENY }

    public static void write(int pid, List<LinuxIDMapping> uids, List<LinuxIDMapping> gids, Setgroups setgroups)
            throws IOException {
        Path proc = Path.of("/proc", Integer.toString(pid));
        if (setgroups == Setgroups.DENY) {
            writeOnce(proc.resolve("setgroups"), "deny");
        }
        writeOnce(proc.resolve("gid_map"), lines(gids));
        writeOnce(proc.resolve("uid_map"), lines(uids));
    }

    /** The map file's text: "containerID hostID size" per range. */
    public static String lines(List<LinuxIDMapping> mappings) {
        StringBuilder text = new StringBuilder();
        for (LinuxIDMapping m : mappings) {
            text.append(m.containerID()).append(' ').append(m.hostID()).append(' ').append(m.size()).append('\n');
        }
        return text.toString();
    }

    private static void writeOnce(Path file, String text) throws IOException {
        // one write(2): a map written in pieces is refused after its first
        Files.write(file, text.getBytes(StandardCharsets.US_ASCII), StandardOpenOption.WRITE);
    }
}
