package io.jrunc.shim.host;

import io.jrunc.bindings.Errno;
import io.jrunc.bindings.ErrnoException;
import io.jrunc.bindings.Processes;
import io.jrunc.shim.ProcessExit;
import java.time.Instant;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The exits of the processes the shim made (container inits, execs), each collected by a waitpid on
 * that one pid. The shim's JVM has other children whose status belongs to someone else: the JDK's own
 * process reaper waits for every ProcessBuilder child by its pid, and the runtime library waits for
 * its helpers by pid ({@code ChildWaits}). A wait(-1) would take their statuses; a wait for one pid
 * never does, and cannot lose this one: the pid stays a zombie, and so unused, until it is collected
 * here. The thread is a platform thread because the wait is a blocking native call.
 */
final class ExitWatch {
    /** Pids whose exit a watch collects: the orphan sweep leaves them alone. */
    static final Set<Integer> WATCHED = ConcurrentHashMap.newKeySet();

    private ExitWatch() {
    }

    /** Starts collecting {@code pid}'s exit; the future completes once, with the time it was collected. */
    static CompletableFuture<ProcessExit> watch(int pid) {
        CompletableFuture<ProcessExit> exit = new CompletableFuture<>();
        WATCHED.add(pid);
        Thread.ofPlatform().name("exit-" + pid).daemon(true).start(() -> {
            try {
                exit.complete(collect(pid));
            } catch (RuntimeException | Error e) {
                exit.completeExceptionally(e);
            } finally {
                WATCHED.remove(pid);
            }
        });
        return exit;
    }

    private static ProcessExit collect(int pid) {
        while (true) {
            try {
                Processes.WaitStatus status = Processes.waitpid(pid, Processes.__WALL);
                if (status != null && (status.exited() || status.signaled())) {
                    return new ProcessExit(pid, status.shellStatus(), Instant.now());
                }
            } catch (ErrnoException e) {
                if (e.is(Errno.ECHILD)) {
                    // not (or no longer) our child: nothing more can be learnt of it
                    return new ProcessExit(pid, 255, Instant.now());
                }
                throw e;
            }
        }
    }
}
