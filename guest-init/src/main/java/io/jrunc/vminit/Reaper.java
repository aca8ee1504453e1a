package io.jrunc.vminit;

import io.jrunc.bindings.Errno;
import io.jrunc.bindings.ErrnoException;
import io.jrunc.bindings.Processes;
import io.jrunc.runtime.init.ChildWaits;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

/**
 * PID 1's one reaper: a platform thread that collects every child's status, its own and every orphan
 * the kernel re-parents to it (__WALL: the runtime's CLONE_VFORK helpers signal nothing on exit). A status
 * goes to whoever asks for that pid, before or after it arrived; it is also the runtime library's
 * {@link ChildWaits.Waiter}, so the library's waits (create's undo, hooks, the procfs helper) get their
 * status from here instead of racing this thread for it.
 *
 * <p>Pids are reused: once a pod's processes have gone through pid_max of them (a build in a container
 * does it quickly), a new process gets the pid of one whose status this reaper kept (an orphan's, which
 * nobody asks for, or a process whose status was handed out and may be asked for again). So a status
 * is handed out only if it can be the asker's process's: the reaper waits for a child without reaping
 * it (waitid with WNOWAIT), then, holding its lock, reaps it and records the status at once. Under
 * that lock a pid whose /proc entry exists has no status recorded yet (it runs, or is a zombie about
 * to be reaped), so whatever is kept for that pid is an older process's and is dropped; a pid without
 * one was reaped and recorded, and its latest status is the asker's. The latest status of each pid is
 * kept, up to {@value #KEEP}, the oldest dropped first, so that an asker may ask again (a WNOHANG
 * poll, a second Wait); the library's waits take theirs away, as waitpid does.
 */
final class Reaper implements ChildWaits.Waiter {
    private static final int KEEP = 4096;

    /** The latest status reaped for each pid, the oldest first. */
    private final LinkedHashMap<Integer, Processes.WaitStatus> statuses = new LinkedHashMap<>(16, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Integer, Processes.WaitStatus> e) {
            return size() > KEEP;
        }
    };
    /** Askers waiting for the status of a process that has not ended yet. */
    private final Map<Integer, CompletableFuture<Processes.WaitStatus>> waiting = new HashMap<>();

    static Reaper start() {
        Reaper reaper = new Reaper();
        ChildWaits.install(reaper);
        Thread.ofPlatform().name("reaper").daemon(true).start(reaper::loop);
        return reaper;
    }

    private void loop() {
        while (true) {
            int pid;
            try {
                pid = Processes.waitEnded(Processes.P_ALL, 0, Processes.__WALL);
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
            try {
                reap(pid);
            } catch (RuntimeException | Error e) {
                Console.log("reaper: %s", e);
                sleep(100);
            }
        }
    }

    /** Reaps an ended child and records its status, in one step under the lock askers take. */
    private synchronized void reap(int pid) {
        Processes.WaitStatus status = Processes.waitpid(pid, Processes.WNOHANG | Processes.__WALL);
        if (status == null || !(status.exited() || status.signaled())) {
            return;
        }
        statuses.remove(pid); // an older process's, if any: the new one goes last
        statuses.put(pid, status);
        CompletableFuture<Processes.WaitStatus> asker = waiting.remove(pid);
        if (asker != null) {
            asker.complete(status);
        }
    }

    /** The exit status of {@code pid}, a process of the asker's (see the class comment), when it comes. */
    synchronized CompletableFuture<Processes.WaitStatus> exitOf(int pid) {
        CompletableFuture<Processes.WaitStatus> f = waiting.get(pid);
        if (f != null) {
            return f;
        }
        Processes.WaitStatus kept = statuses.get(pid);
        if (kept != null) {
            if (!Files.exists(Path.of("/proc/" + pid))) {
                return CompletableFuture.completedFuture(kept);
            }
            statuses.remove(pid); // the process of that pid runs: this was an older one's
        }
        f = new CompletableFuture<>();
        waiting.put(pid, f);
        return f;
    }

    /**
     * Takes and forgets the status of a child the agent killed and will not report on (a process made
     * for a call that then failed), waiting for it at most 10 s.
     */
    void claim(int pid) {
        try {
            taken(pid, exitOf(pid).get(10, java.util.concurrent.TimeUnit.SECONDS));
        } catch (java.util.concurrent.TimeoutException e) {
            Console.log("reaper: process %d did not end within 10 s of its SIGKILL", pid);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException e) {
            throw new IllegalStateException(e.getCause());
        }
    }

    @Override
    public Processes.WaitStatus waitpid(int pid, int options) {
        if (pid <= 0) {
            throw new IllegalArgumentException("the agent's reaper waits for one pid at a time, not " + pid);
        }
        CompletableFuture<Processes.WaitStatus> f = exitOf(pid);
        if ((options & Processes.WNOHANG) != 0 && !f.isDone()) {
            return null;
        }
        try {
            return taken(pid, f.get());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ErrnoException("waitpid", Errno.EINTR, Integer.toString(pid));
        } catch (ExecutionException e) {
            throw new IllegalStateException(e.getCause());
        }
    }

    /** A status its asker took for good (waitpid's reaping, claim): no longer kept. */
    private synchronized Processes.WaitStatus taken(int pid, Processes.WaitStatus status) {
        statuses.remove(pid, status);
        return status;
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
