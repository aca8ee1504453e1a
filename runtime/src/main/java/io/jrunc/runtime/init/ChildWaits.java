package io.jrunc.runtime.init;

import io.jrunc.bindings.Processes;

/**
 * Every wait of the runtime library on a child it made (hooks, exec, create's undo, the procfs helper)
 * goes through here. In the jrunc binary it is waitpid(2) itself. A process that reaps every child
 * with wait(-1), as a PID 1 must (the guest agent), installs a {@link Waiter} that hands the library
 * the status its reaper collected, so that neither steals the other's status.
 */
public final class ChildWaits {
    private ChildWaits() {}

    /** Waits as waitpid(pid, options) would; returns null only for WNOHANG with nothing to report. */
    @FunctionalInterface
    public interface Waiter {
        Processes.WaitStatus waitpid(int pid, int options);
    }

    private static volatile Waiter waiter = Processes::waitpid;

    /** Installed once, before any child is made, by a process that reaps on its own. */
    public static void install(Waiter reaper) {
        waiter = reaper;
    }

    public static Processes.WaitStatus waitpid(int pid, int options) {
        return waiter.waitpid(pid, options);
    }
}
