package io.jrunc.shim.host;

import io.jrunc.shim.ProcessExit;
import io.jrunc.shim.TaskRequests;
import io.jrunc.spec.Process;
import java.util.concurrent.CompletableFuture;

/**
 * One process of a task: its init (execId "") or an exec. An exec exists from Exec (its process spec
 * kept) and gets its pid at Start; an init has its pid from Create.
 */
final class HostProcess {
    final String taskId;
    final String execId;
    final TaskRequests.Stdio stdio;
    /** An exec's process, run at start; null for the init. */
    final Process spec;
    volatile int pid;
    /**
     * A pidfd of the started process, opened while it is still unreaped (so it is this process's):
     * signals go through it, so one sent as the exit is being collected cannot reach a process that
     * reused the pid. -1 until started.
     */
    volatile int pidfd = -1;
    volatile ProcessStdio io;
    /** Completes once, when the process has been collected (and a terminal's output copied). */
    final CompletableFuture<ProcessExit> exit = new CompletableFuture<>();

    HostProcess(String taskId, String execId, TaskRequests.Stdio stdio, Process spec) {
        this.taskId = taskId;
        this.execId = execId;
        this.stdio = stdio;
        this.spec = spec;
    }

    boolean started() {
        return pid > 0;
    }

    boolean exited() {
        return exit.isDone();
    }
}
