package io.jrunc.vminit;

import io.jrunc.bindings.Errno;
import io.jrunc.bindings.ErrnoException;
import io.jrunc.bindings.Processes;
import io.jrunc.runtime.init.ChildWaits;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

/**
 * PID 1's one reaper: a platform thread in wait(-1) for every child, its own and every orphan the
 * kernel re-parents to it (__WALL: the runtime's CLONE_VFORK helpers signal nothing on exit). A status
 * goes to whoever asks for that pid, before or after it arrived; it is also the runtime library's
 * {@link ChildWaits.Waiter}, so the library's waits (create's undo, hooks, the procfs helper) get their
 * status from here instead of racing this thread for it. Statuses nobody asked for (orphans) are kept
 * for a while and then dropped.
 */
final class Reaper implements ChildWaits.Waiter {
    private static final int KEEP_UNCLAIMED = 4096;

    private final Map<Integer, CompletableFuture<Processes.WaitStatus>> statuses =
            new LinkedHashMap<>(16, 0.75f, false) {
                @Override
                protected boolean removeEldestEntry(Map.Entry<Integer, CompletableFuture<Processes.WaitStatus>> e) {
                    return size() > KEEP_UNCLAIMED && e.getValue().isDone();
                }
            };

    static Reaper start() {
        Reaper reaper = new Reaper();
        ChildWaits.install(reaper);
        Thread.ofPlatform().name("reaper").daemon(true).start(reaper::loop);
        return reaper;
    }

    private void loop() {
        while (true) {
            Processes.WaitStatus status;
            try {
                status = Processes.waitpid(-1, Processes.__WALL);
            } catch (ErrnoException e) {
                if (!e.is(Errno.ECHILD)) {
                    Console.log("reaper: %s", e.getMessage());
                }
                // no children yet: look again shortly (a new child's exit waits at most this long)
                sleep(20);
                continue;
            } catch (RuntimeException | Error e) {
                Console.log("reaper: %s", e);
                sleep(100);
                continue;
            }
            if (status != null && (status.exited() || status.signaled())) {
                future(status.pid()).complete(status);
            }
        }
    }

    private synchronized CompletableFuture<Processes.WaitStatus> future(int pid) {
        return statuses.computeIfAbsent(pid, p -> new CompletableFuture<>());
    }

    /** The exit status of {@code pid}, when it comes. */
    CompletableFuture<Processes.WaitStatus> exitOf(int pid) {
        return future(pid);
    }

    /**
     * Takes and forgets the status of a child the agent killed and will not report on (a process made
     * for a call that then failed), waiting for it at most 10 s.
     */
    void claim(int pid) {
        CompletableFuture<Processes.WaitStatus> f = future(pid);
        try {
            f.get(10, java.util.concurrent.TimeUnit.SECONDS);
            forget(pid, f);
        } catch (java.util.concurrent.TimeoutException e) {
            Console.log("reaper: process %d did not end within 10 s of its SIGKILL", pid);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException e) {
            throw new IllegalStateException(e.getCause());
        }
    }

    /** Forgets a pid whose status was taken (pids are reused). */
    synchronized void forget(int pid, CompletableFuture<Processes.WaitStatus> taken) {
        statuses.remove(pid, taken);
    }

    @Override
    public Processes.WaitStatus waitpid(int pid, int options) {
        if (pid <= 0) {
            throw new IllegalArgumentException("the agent's reaper waits for one pid at a time, not " + pid);
        }
        CompletableFuture<Processes.WaitStatus> f = future(pid);
        if ((options & Processes.WNOHANG) != 0 && !f.isDone()) {
            return null;
        }
        try {
            Processes.WaitStatus status = f.get();
            forget(pid, f);
            return status;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ErrnoException("waitpid", Errno.EINTR, Integer.toString(pid));
        } catch (ExecutionException e) {
            throw new IllegalStateException(e.getCause());
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
