package io.jrunc.vm.cli;

import com.google.protobuf.ByteString;
import io.jrunc.agent.api.AgentClient;
import io.jrunc.agent.api.AgentMethods;
import io.jrunc.agent.api.pb.v1.CloseStdinRequest;
import io.jrunc.agent.api.pb.v1.ExecRequest;
import io.jrunc.agent.api.pb.v1.OutputStream;
import io.jrunc.agent.api.pb.v1.ProcessRef;
import io.jrunc.agent.api.pb.v1.ProcessSpec;
import io.jrunc.agent.api.pb.v1.ReadOutputRequest;
import io.jrunc.agent.api.pb.v1.ReadOutputResponse;
import io.jrunc.agent.api.pb.v1.WaitRequest;
import io.jrunc.agent.api.pb.v1.WriteStdinRequest;
import io.jrunc.ttrpc.RpcException;
import io.jrunc.vm.Containers;
import io.jrunc.vm.VmException;
import io.jrunc.vm.monitor.MonitorMethods;
import io.jrunc.vm.monitor.pb.AwaitOutputRequest;
import io.jrunc.vm.state.ContainerRecord;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * Attaching the CLI's standard streams to a process in the guest. A container's own output is read
 * from the log files the monitor writes (the monitor is the one reader of the agent's output buffers,
 * so that `logs` has all of it); an exec's output is read from the agent directly (through the
 * monitor's pass-through) and not logged. Stdin goes to WriteStdin in chunks, end of file to CloseStdin.
 */
final class Attach {
    private static final Duration FOREVER = Duration.ofDays(3650);

    private Attach() {
    }

    static int container(Containers containers, ContainerRecord c, boolean stdin, boolean tty) throws VmException, InterruptedException {
        ProcessRef ref = ProcessRef.newBuilder().setContainerId(c.name()).build();
        Follower out = new Follower(containers.logFile(c, "stdout"), Main.Output.out);
        Follower err = new Follower(containers.logFile(c, "stderr"), Main.Output.err);
        Thread to = Thread.ofVirtual().start(out);
        Thread te = Thread.ofVirtual().start(err);
        try (AgentClient monitor = containers.pods().connectRunning(containers.pods().require(c.pod()))) {
            HostTerminal raw = null;
            Thread resizer = null;
            if (tty) {
                consoleSize().ifPresent(size -> {
                    try {
                        monitor.call(AgentMethods.Processes.RESIZE_TERMINAL, io.jrunc.agent.api.pb.v1.ResizeTerminalRequest
                                .newBuilder().setProcess(ref).setSize(size).build(), Duration.ofSeconds(10));
                    } catch (RpcException e) {
                        // a process that already ended; Wait reports it
                    }
                });
                raw = stdin ? HostTerminal.raw(0).orElse(null) : null;
                if (HostTerminal.isTerminal(0)) {
                    resizer = Thread.ofVirtual().start(() -> followSize(monitor, ref));
                }
            }
            if (stdin) {
                pumpStdin(monitor, ref, System.in);
            }
            int code;
            try {
                code = containers.await(c.name());
            } finally {
                if (resizer != null) {
                    resizer.interrupt();
                }
                if (raw != null) {
                    raw.close();
                }
            }
            if (outputEnded(monitor, c.name())) {
                out.complete(to);
                err.complete(te);
            } else {
                out.finish();
                err.finish();
            }
            to.join();
            te.join();
            return code;
        }
    }

    /** How long after the process's exit its output may still be on its way to the log files. */
    private static final Duration OUTPUT_GRACE = Duration.ofSeconds(5);

    /**
     * Whether the monitor says the container's logs are complete (its copies reached the agent's end of
     * file); false when they are not within {@link #OUTPUT_GRACE} or the monitor cannot say (one that
     * predates AwaitOutput), and then the followers stop once the files stop growing.
     */
    private static boolean outputEnded(AgentClient monitor, String container) {
        try {
            return monitor.call(MonitorMethods.AWAIT_OUTPUT, AwaitOutputRequest.newBuilder().setId(container)
                    .setTimeoutNanos(OUTPUT_GRACE.toNanos()).build(), OUTPUT_GRACE.plusSeconds(5)).getEnded();
        } catch (RpcException e) {
            return false;
        }
    }

    static int exec(Containers containers, ContainerRecord c, String execId, List<String> command, List<String> env,
                    String workdir, boolean stdin, boolean tty) throws VmException, InterruptedException {
        ProcessRef ref = ProcessRef.newBuilder().setContainerId(c.name()).setExecId(execId).build();
        try (AgentClient monitor = containers.pods().connectRunning(containers.pods().require(c.pod()))) {
            ProcessSpec.Builder spec = ProcessSpec.newBuilder().addAllArgs(command).addAllEnv(env).setTerminal(tty);
            if (workdir != null) {
                spec.setCwd(workdir);
            }
            if (tty) {
                consoleSize().ifPresent(spec::setConsoleSize);
            }
            HostTerminal raw = tty && stdin ? HostTerminal.raw(0).orElse(null) : null;
            try {
                monitor.call(AgentMethods.Processes.EXEC, ExecRequest.newBuilder().setContainerId(c.name())
                        .setExecId(execId).setProcess(spec).build(), Duration.ofSeconds(60));
            } catch (RpcException e) {
                throw ContainersErrors.of("exec " + c.name(), e);
            }
            if (!stdin && !tty) {
                // without -i the exec reads end of file at once (podman's /dev/null), never a pipe left open
                try {
                    monitor.call(AgentMethods.Processes.CLOSE_STDIN, CloseStdinRequest.newBuilder().setProcess(ref).build(),
                            Duration.ofSeconds(30));
                } catch (RpcException e) {
                    // an exec that already ended; Wait reports it
                }
            }
            Thread to = Thread.ofVirtual().start(() -> copyOutput(monitor, ref, OutputStream.OUTPUT_STREAM_STDOUT, Main.Output.out));
            Thread te = Thread.ofVirtual().start(() -> copyOutput(monitor, ref, OutputStream.OUTPUT_STREAM_STDERR, Main.Output.err));
            if (stdin) {
                pumpStdin(monitor, ref, System.in);
            }
            Thread resizer = tty && HostTerminal.isTerminal(0) ? Thread.ofVirtual().start(() -> followSize(monitor, ref)) : null;
            int code;
            try {
                code = monitor.call(AgentMethods.Processes.WAIT, WaitRequest.newBuilder().setProcess(ref).build(), FOREVER)
                        .getStatus().getCode();
            } catch (RpcException e) {
                throw ContainersErrors.of("exec " + c.name(), e);
            } finally {
                if (resizer != null) {
                    resizer.interrupt();
                }
                if (raw != null) {
                    raw.close();
                }
            }
            to.join(Duration.ofSeconds(10));
            te.join(Duration.ofSeconds(10));
            return code;
        }
    }

    /**
     * The terminal's size for a -t process: the CLI's own terminal's (TIOCGWINSZ on stdin) when it has
     * one, else LINES and COLUMNS when the caller sets them (as shells and script(1) do).
     */
    static java.util.Optional<io.jrunc.agent.api.pb.v1.ConsoleSize> consoleSize() {
        java.util.Optional<HostTerminal.Size> own = HostTerminal.size(0);
        if (own.isPresent() && own.get().rows() > 0) {
            return own.map(s -> io.jrunc.agent.api.pb.v1.ConsoleSize.newBuilder().setRows(s.rows()).setColumns(s.columns()).build());
        }
        try {
            int rows = Integer.parseInt(System.getenv().getOrDefault("LINES", ""));
            int cols = Integer.parseInt(System.getenv().getOrDefault("COLUMNS", ""));
            return java.util.Optional.of(io.jrunc.agent.api.pb.v1.ConsoleSize.newBuilder().setRows(rows).setColumns(cols).build());
        } catch (NumberFormatException e) {
            return java.util.Optional.empty();
        }
    }

    /**
     * Sends ResizeTerminal when the CLI's terminal changes size. Polled every 200 ms rather than on
     * SIGWINCH: the JDK's signal API for it is unsupported (sun.misc.Signal), and a poll costs nothing
     * noticeable in a CLI that waits anyway.
     */
    private static void followSize(AgentClient monitor, ProcessRef ref) {
        java.util.Optional<HostTerminal.Size> last = HostTerminal.size(0);
        try {
            while (!Thread.currentThread().isInterrupted()) {
                Thread.sleep(200);
                java.util.Optional<HostTerminal.Size> now = HostTerminal.size(0);
                if (now.isPresent() && !now.equals(last)) {
                    last = now;
                    monitor.call(AgentMethods.Processes.RESIZE_TERMINAL, io.jrunc.agent.api.pb.v1.ResizeTerminalRequest.newBuilder()
                            .setProcess(ref).setSize(io.jrunc.agent.api.pb.v1.ConsoleSize.newBuilder()
                                    .setRows(now.get().rows()).setColumns(now.get().columns())).build(), Duration.ofSeconds(10));
                }
            }
        } catch (InterruptedException | RpcException e) {
            // the process ended, or it has no terminal after all
        }
    }

    private static void copyOutput(AgentClient monitor, ProcessRef ref, OutputStream stream, PrintStream to) {
        ReadOutputRequest request = ReadOutputRequest.newBuilder().setProcess(ref).setStream(stream).setMaxBytes(64 * 1024).build();
        try {
            while (true) {
                ReadOutputResponse r = monitor.call(AgentMethods.Processes.READ_OUTPUT, request, FOREVER);
                r.getData().writeTo(to);
                to.flush();
                if (r.getEof()) {
                    return;
                }
            }
        } catch (RpcException | IOException e) {
            // the process or the connection went; Wait reports the status
        }
    }

    private static void pumpStdin(AgentClient monitor, ProcessRef ref, InputStream in) {
        Thread.ofVirtual().start(() -> {
            byte[] buf = new byte[32 * 1024];
            try {
                int n;
                while ((n = in.read(buf)) > 0) {
                    monitor.call(AgentMethods.Processes.WRITE_STDIN, WriteStdinRequest.newBuilder().setProcess(ref)
                            .setData(ByteString.copyFrom(buf, 0, n)).build(), FOREVER);
                }
                monitor.call(AgentMethods.Processes.CLOSE_STDIN, CloseStdinRequest.newBuilder().setProcess(ref).build(), Duration.ofSeconds(30));
            } catch (IOException | RpcException e) {
                // the process went or closed its stdin
            }
        });
    }

    /**
     * Tails a log file to a stream until told the file is complete (then it copies the rest and ends),
     * or that the process ended, and then until the file stopped growing.
     */
    static final class Follower implements Runnable {
        private final Path file;
        private final PrintStream to;
        private volatile boolean finishing;
        private volatile boolean complete;

        Follower(Path file, PrintStream to) {
            this.file = file;
            this.to = to;
        }

        void finish() {
            finishing = true;
        }

        /** The file has all it will have: the rest is copied at once, without a quiet period. */
        void complete(Thread follower) {
            complete = true;
            follower.interrupt(); // out of its poll's sleep
        }

        @Override
        public void run() {
            long pos = 0;
            int quiet = 0;
            byte[] buf = new byte[64 * 1024];
            try {
                while (true) {
                    long size = Files.exists(file) ? Files.size(file) : 0;
                    if (size > pos) {
                        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "r")) {
                            raf.seek(pos);
                            int n;
                            while (pos < size && (n = raf.read(buf, 0, (int) Math.min(buf.length, size - pos))) > 0) {
                                to.write(buf, 0, n);
                                pos += n;
                            }
                        }
                        to.flush();
                        quiet = 0;
                        if (complete) {
                            continue; // the interrupt that said so is spent: look again at once, not after a poll
                        }
                    } else if (complete) {
                        return;
                    } else if (finishing && ++quiet > 5) {
                        return; // the monitor writes what it reads at once: 5 quiet polls after exit is the end
                    }
                    try {
                        Thread.sleep(50);
                    } catch (InterruptedException e) {
                        if (!complete) {
                            return; // the CLI is ending
                        }
                    }
                }
            } catch (IOException e) {
                // the container was removed (--rm) or the CLI is ending
            }
        }
    }

    /** Containers.agentError, reachable from here. */
    static final class ContainersErrors {
        private ContainersErrors() {
        }

        static VmException of(String what, RpcException e) {
            return io.jrunc.vm.Containers.agentErrorFor(what, e);
        }
    }
}
