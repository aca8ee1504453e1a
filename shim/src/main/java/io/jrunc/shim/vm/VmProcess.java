package io.jrunc.shim.vm;

import io.jrunc.agent.api.pb.v1.ExitStatus;
import io.jrunc.shim.ProcessExit;
import io.jrunc.shim.TaskRequests;
import io.jrunc.shim.TaskStatus;
import io.jrunc.vm.ProcessStreams;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * One process of a task in the pod: a container's own (exec id empty) or an exec. Its standard
 * streams are copied between containerd's fifos on the host and the agent's streams, one platform
 * thread per stream: opening a fifo blocks in open(2) until containerd's end is open, which would pin
 * a virtual thread's carrier (two such opens on this 2-core machine starved every other virtual
 * thread of the JVM, the agent client's reader among them). Its exit is completed once, after its
 * output has been copied (so that a reader of the fifo has everything when containerd hears of the exit).
 */
final class VmProcess {
    /** How long the output copy may go on after the exit before the exit is reported anyway. */
    private static final Duration DRAIN = Duration.ofSeconds(10);

    final String taskId;
    final String execId;
    final TaskRequests.Stdio stdio;
    /** The agent's ProcessSpec for an exec (sent by start), null for a container's own process. */
    final io.jrunc.agent.api.pb.v1.ProcessSpec execSpec;
    volatile int pid;
    volatile boolean started;
    final CompletableFuture<ProcessExit> exit = new CompletableFuture<>();
    private final AtomicBoolean ended = new AtomicBoolean();
    private final List<Thread> outputCopies = new ArrayList<>();
    private volatile ProcessStreams streams;

    VmProcess(String taskId, String execId, TaskRequests.Stdio stdio, io.jrunc.agent.api.pb.v1.ProcessSpec execSpec) {
        this.taskId = taskId;
        this.execId = execId;
        this.stdio = stdio;
        this.execSpec = execSpec;
    }

    TaskStatus status() {
        ProcessExit e = exit.getNow(null);
        TaskStatus.Phase phase = e != null ? TaskStatus.Phase.STOPPED : started ? TaskStatus.Phase.RUNNING : TaskStatus.Phase.CREATED;
        return new TaskStatus(taskId, execId, pid, phase, stdio, e);
    }

    /**
     * Begins copying: stdout and stderr from the agent to their fifos, the stdin fifo to the agent.
     * Without a stdin fifo the process's stdin is closed (it reads end of file at once, as a runc
     * container given no stdin does), unless it has a terminal, whose end of file is a character.
     */
    synchronized void attach(ProcessStreams streams) throws IOException {
        this.streams = streams;
        if (!stdio.stdout().isEmpty()) {
            outputCopies.add(copy("stdout", streams.stdout(), stdio.stdout()));
        }
        if (!stdio.stderr().isEmpty() && !stdio.terminal()) {
            outputCopies.add(copy("stderr", streams.stderr(), stdio.stderr()));
        }
        if (!stdio.stdin().isEmpty()) {
            Thread.ofPlatform().daemon().name("stdin-" + taskId + "-" + execId).start(() -> {
                try (InputStream in = new FileInputStream(stdio.stdin()); OutputStream out = streams.stdin()) {
                    in.transferTo(out);
                } catch (IOException e) {
                    // containerd closed its end, or the process went: nothing more to give it
                }
            });
        } else if (!stdio.terminal()) {
            streams.closeStdin();
        }
    }

    private Thread copy(String name, InputStream from, String fifo) {
        return Thread.ofPlatform().daemon().name(name + "-" + taskId + "-" + execId).start(() -> {
            try (from; OutputStream out = new FileOutputStream(fifo)) {
                byte[] buffer = new byte[64 * 1024];
                for (int n; (n = from.read(buffer)) >= 0; ) {
                    out.write(buffer, 0, n);
                    out.flush();
                }
            } catch (IOException e) {
                // the reader went away (containerd closed the fifo): the process's output is not wanted
            }
        });
    }

    /** CloseIO: the process's stdin closed, whatever the copy from the fifo is doing. */
    void closeStdin() throws IOException {
        ProcessStreams s = streams;
        if (s != null) {
            s.closeStdin();
        }
    }

    /**
     * Ends the process once its output has been copied (or {@link #DRAIN} has passed): see
     * {@link #exited(int, long, Consumer)}.
     */
    void exited(ExitStatus status, Consumer<ProcessExit> report) throws InterruptedException {
        List<Thread> copies;
        synchronized (this) {
            copies = List.copyOf(outputCopies);
        }
        long deadline = System.nanoTime() + DRAIN.toNanos();
        for (Thread t : copies) {
            long left = deadline - System.nanoTime();
            if (left > 0) {
                t.join(Duration.ofNanos(left));
            }
        }
        exited(status.getCode(), status.getExitedAtNanos(), report);
    }

    /**
     * Ends the process with {@code code}, once: the first call reports the exit (when the process was
     * started: one deleted before its start is no exit containerd hears of) and only then completes
     * it, so that whoever sees the exit (Wait, State, Delete) finds it already reported; later calls
     * do nothing.
     */
    void exited(int code, long atNanos, Consumer<ProcessExit> report) {
        if (!ended.compareAndSet(false, true)) {
            return;
        }
        Instant at = atNanos > 0 ? Instant.ofEpochSecond(0, atNanos) : Instant.now();
        ProcessExit e = new ProcessExit(pid, code, at);
        try {
            if (started && report != null) {
                report.accept(e);
            }
        } finally {
            exit.complete(e);
        }
    }

    ProcessExit awaitExit() throws InterruptedException {
        try {
            return exit.get();
        } catch (java.util.concurrent.ExecutionException e) {
            throw new IllegalStateException(e.getCause());
        }
    }
}
