package io.jrunc.vm.monitor;

import io.jrunc.bindings.ErrnoException;
import io.jrunc.bindings.Processes;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * A session of its own for a jrunc-vm process that outlives the call that started it (the pod monitor,
 * the pool's fill): a shell's SIGHUP at logout or a ^C to the caller's process group must not reach it.
 * The CLI starts such a process through util-linux's setsid(1) when the PATH has it ({@link #launcher}),
 * so that the process begins as its session's leader and makes no system call for it: setsid(2) through
 * the bindings would be a new monitor's first native call, and a cold JVM's first downcall pays for the
 * linker's start (about 100 ms of the monitor's start on this machine kind, before it can start qemu).
 * A process started any other way calls setsid(2) itself ({@link #lead}).
 */
public final class Session {
    private Session() {
    }

    /**
     * The program to put before a command line so that it starts as a new session's leader: util-linux's
     * setsid found on the PATH, or nothing. It execs the command in place, as ProcessBuilder's child is no
     * process group leader (setsid(1) forks only for one), so the started process is the command's.
     */
    public static List<String> launcher() {
        String path = System.getenv("PATH");
        for (String dir : (path == null ? "/usr/bin:/bin" : path).split(File.pathSeparator)) {
            if (!dir.isEmpty()) {
                Path program = Path.of(dir, "setsid");
                if (Files.isRegularFile(program) && Files.isExecutable(program)) {
                    return List.of(program.toString());
                }
            }
        }
        return List.of();
    }

    /** Makes this process its session's leader, unless it already is (started through {@link #launcher}). */
    public static void lead() throws ErrnoException {
        if (!leads()) {
            Processes.setsid();
        }
    }

    /** Whether this process leads its session: its session id (the sixth field of /proc/self/stat) is its pid. */
    static boolean leads() {
        try {
            String stat = Files.readString(Path.of("/proc/self/stat"));
            String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return Long.parseLong(fields[3]) == ProcessHandle.current().pid();
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }
}
