package io.jrunc.runtime;

import io.jrunc.bindings.ErrnoException;
import io.jrunc.bindings.Processes;
import io.jrunc.runtime.init.ChildWaits;
import java.util.List;
import sun.misc.Signal;

/**
 * A container process that `run` or `exec` waits for in the foreground: the signals jrunc receives are
 * forwarded to it (as runc does), and jrunc exits with its status, 128+signal when it was killed.
 * The process is a child of this JVM (spawned by one of its threads), so waitpid works.
 */
public final class ForegroundProcess {
    private static final List<String> FORWARDED = List.of("TERM", "INT", "HUP", "USR1", "USR2", "WINCH", "CONT",
            "ALRM", "TSTP", "TTIN", "TTOU");

    private final int pid;

    private ForegroundProcess(int pid) {
        this.pid = pid;
    }

    public static ForegroundProcess forwardSignalsTo(int pid) {
        for (String name : FORWARDED) {
            try {
                Signal.handle(new Signal(name), s -> {
                    try {
                        Processes.kill(pid, s.getNumber());
                    } catch (ErrnoException ignored) {
                        // exited meanwhile
                    }
                });
            } catch (IllegalArgumentException ignored) {
                // the JVM reserves this one
            }
        }
        return new ForegroundProcess(pid);
    }

    public int waitForExit() {
        return ChildWaits.waitpid(pid, 0).shellStatus();
    }
}
