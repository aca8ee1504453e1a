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

    /**
     * Writes the maps of an unprivileged caller's new user namespace. The kernel lets such a caller
     * write one map of one id, its own effective uid (and, once setgroups says "deny", its own
     * effective gid), so that case is written directly with setgroups denied; anything else (several
     * ranges, or ids of the caller's subordinate ranges in /etc/subuid and /etc/subgid) goes through
     * the setuid helpers newuidmap and newgidmap (the uidmap package), which check the ranges against
     * those files, each with the whole map as arguments ("PID containerID hostID size ..."), as runc
     * runs them. setgroups then stays "allow".
     *
     * @return how setgroups was left
     */
    public static Setgroups writeUnprivileged(int pid, List<LinuxIDMapping> uids, List<LinuxIDMapping> gids,
            long euid, long egid) throws IOException {
        if (isOwnId(uids, euid) && isOwnId(gids, egid)) {
            write(pid, uids, gids, Setgroups.DENY);
            return Setgroups.DENY;
        }
        runHelper("newgidmap", "linux.gidMappings", pid, gids);
        runHelper("newuidmap", "linux.uidMappings", pid, uids);
        return Setgroups.KEEP;
    }

    /** A single mapping of one id, the caller's own. */
    static boolean isOwnId(List<LinuxIDMapping> mappings, long id) {
        return mappings.size() == 1 && mappings.getFirst().size() == 1 && mappings.getFirst().hostID() == id;
    }

    /** The helper's command line: the pid, then each range's three numbers. */
    static List<String> helperArguments(String helper, int pid, List<LinuxIDMapping> mappings) {
        List<String> command = new java.util.ArrayList<>();
        command.add(helper);
        command.add(Integer.toString(pid));
        for (LinuxIDMapping m : mappings) {
            command.add(Long.toString(m.containerID()));
            command.add(Long.toString(m.hostID()));
            command.add(Long.toString(m.size()));
        }
        return command;
    }

    /** Runs the helper; its refusal (a range outside the user's allowance) is reported by {@code field}. */
    private static void runHelper(String helper, String field, int pid, List<LinuxIDMapping> mappings) throws IOException {
        List<String> command = helperArguments(helper, pid, mappings);
        Process process;
        try {
            process = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null"))).start();
        } catch (IOException e) {
            throw new IOException(helper + " is needed to map more than the caller's own id (install the uidmap"
                    + " package): " + e.getMessage(), e);
        }
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        int status;
        try {
            status = process.waitFor();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(helper + " interrupted", e);
        }
        if (status != 0) {
            throw new IOException(field + ": " + helper + " refused the map (status " + status + ")"
                    + (output.isEmpty() ? "" : ": " + output.replace('\n', ' ')));
        }
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
