package io.jrunc.runtime;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The two fields of /proc/PID/stat the runtime needs: the state letter (to tell a zombie from a live
 * process) and the start time in clock ticks since boot, which together with the pid identifies one
 * process across pid reuse (runc records the same field, 22, in its state).
 */
public record ProcStat(char state, long startTime) {

    /** The stat of {@code pid}, or null if there is no such process. */
    public static ProcStat read(int pid) {
        if (pid <= 0) {
            return null;
        }
        String text;
        try {
            text = Files.readString(Path.of("/proc", Integer.toString(pid), "stat"));
        } catch (IOException e) {
            return null;
        }
        // The command name (field 2) is in parentheses and may itself hold spaces or parentheses.
        int close = text.lastIndexOf(')');
        String[] fields = text.substring(close + 2).trim().split(" ");
        // fields[0] is field 3 (state); start time is field 22, so index 19.
        return new ProcStat(fields[0].charAt(0), Long.parseLong(fields[19]));
    }

    public boolean alive() {
        return state != 'Z' && state != 'X' && state != 'x';
    }

    /** True if {@code pid} is still the process that started at {@code startTime} and has not exited. */
    public static boolean isSameLiveProcess(int pid, long startTime) {
        ProcStat stat = read(pid);
        return stat != null && stat.startTime == startTime && stat.alive();
    }
}
