package io.jrunc.vminit;

import com.google.protobuf.ByteString;
import io.jrunc.agent.api.AgentMethods;
import io.jrunc.agent.api.pb.v1.*;
import io.jrunc.bindings.Errno;
import io.jrunc.bindings.ErrnoException;
import io.jrunc.bindings.Processes;
import io.jrunc.bindings.Signals;
import io.jrunc.bindings.Terminals;
import io.jrunc.runtime.ConsoleHandoff;
import io.jrunc.runtime.Container;
import io.jrunc.runtime.ContainerException;
import io.jrunc.runtime.ContainerExec;
import io.jrunc.runtime.ContainerId;
import io.jrunc.runtime.ExecOptions;
import io.jrunc.runtime.init.ChildCgroupEntry;
import io.jrunc.runtime.init.SpawnRequest;
import io.jrunc.ttrpc.Code;
import io.jrunc.ttrpc.Dispatcher;
import io.jrunc.ttrpc.RpcException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;

/**
 * jrunc.agent.v1.Processes: execs (made by the runtime library's {@link ContainerExec}, detached, with
 * the agent's pipes as stdio), signals, waits (128+N for signal N) and the standard streams.
 */
final class ProcessService {
    private static final Path PID_FILES = Path.of("/run/jrunc-vminit/exec");
    /** Where an exec's console socket listens for the pty master the runtime library sends. */
    private static final Path CONSOLE_SOCKETS = Path.of("/run/jrunc-vminit/console");
    /**
     * Names each exec's console socket and pid file. Not the ids: container "a" with exec "b.c" and
     * container "a.b" with exec "c" would share "a.b.c", and one exec would take the other's terminal
     * and pid; two ids of up to 255 characters would also pass NAME_MAX and a socket's 108 bytes.
     */
    private static final java.util.concurrent.atomic.AtomicLong EXECS = new java.util.concurrent.atomic.AtomicLong();
    private final ContainerStore store;
    private final Reaper reaper;

    ProcessService(ContainerStore store, Reaper reaper) {
        this.store = store;
        this.reaper = reaper;
    }

    void register(Dispatcher d) {
        d.register(AgentMethods.Processes.EXEC, (c, r) -> exec(r));
        d.register(AgentMethods.Processes.SIGNAL, (c, r) -> signal(r));
        d.register(AgentMethods.Processes.WAIT, (c, r) -> {
            ManagedProcess p = process(r.getProcess());
            try {
                return WaitResponse.newBuilder().setStatus(p.exit.get()).build();
            } catch (ExecutionException e) {
                throw new RpcException(Code.INTERNAL, "waiting: " + e.getCause());
            }
        });
        d.register(AgentMethods.Processes.WRITE_STDIN, (c, r) -> {
            ManagedProcess p = process(r.getProcess());
            try {
                return WriteStdinResponse.newBuilder().setWritten(p.io.writeStdin(r.getData().toByteArray())).build();
            } catch (IllegalStateException | ErrnoException e) {
                throw new RpcException(Code.FAILED_PRECONDITION, "stdin: " + e.getMessage());
            }
        });
        d.register(AgentMethods.Processes.CLOSE_STDIN, (c, r) -> {
            process(r.getProcess()).io.closeStdin();
            return CloseStdinResponse.getDefaultInstance();
        });
        d.register(AgentMethods.Processes.READ_OUTPUT, (c, r) -> {
            ManagedProcess p = process(r.getProcess());
            OutputBuffer buffer = switch (r.getStream()) {
                case OUTPUT_STREAM_STDOUT -> p.io.stdout;
                case OUTPUT_STREAM_STDERR -> p.io.stderr;
                default -> throw new RpcException(Code.INVALID_ARGUMENT, "stream: must be STDOUT or STDERR");
            };
            int max = r.getMaxBytes() == 0 || r.getMaxBytes() > (1 << 20) ? 1 << 20 : r.getMaxBytes();
            byte[] data = buffer.take(max);
            return data == null ? ReadOutputResponse.newBuilder().setEof(true).build()
                    : ReadOutputResponse.newBuilder().setData(ByteString.copyFrom(data)).build();
        });
        d.register(AgentMethods.Processes.RESIZE_TERMINAL, (c, r) -> {
            ManagedProcess p = process(r.getProcess());
            if (p.io.master() < 0) {
                throw new RpcException(Code.FAILED_PRECONDITION, "the process has no terminal");
            }
            try {
                Terminals.setSize(p.io.master(), r.getSize().getRows(), r.getSize().getColumns());
            } catch (ErrnoException e) {
                throw new RpcException(Code.FAILED_PRECONDITION, "resize: " + e.getMessage());
            }
            return ResizeTerminalResponse.getDefaultInstance();
        });
    }

    /**
     * The process a call names. An exec still starting is refused: its process may not exist yet, and
     * nothing meant for it may reach another (the container's own, say).
     */
    private ManagedProcess process(ProcessRef ref) throws RpcException {
        ContainerRecord rec = store.get(ref.getContainerId());
        if (ref.getExecId().isEmpty()) {
            return rec.init;
        }
        return switch (rec.execs.get(ref.getExecId())) {
            case null -> throw new RpcException(Code.NOT_FOUND, "no exec " + ref.getExecId() + " in container " + rec.id);
            case ExecEntry.Starting s -> throw new RpcException(Code.FAILED_PRECONDITION, "exec " + ref.getExecId()
                    + " is still starting");
            case ManagedProcess p -> p;
        };
    }

    private ExecResponse exec(ExecRequest r) throws RpcException {
        ContainerRecord rec = store.get(r.getContainerId());
        String execId = r.getExecId();
        try {
            ContainerId.validate(execId);
        } catch (ContainerException e) {
            throw new RpcException(Code.INVALID_ARGUMENT, "exec_id: " + e.getMessage());
        }
        if (rec.state() != ContainerState.CONTAINER_STATE_RUNNING) {
            throw new RpcException(Code.FAILED_PRECONDITION, "container " + rec.id + " is not running");
        }
        if (r.getProcess().getArgsCount() == 0) {
            throw new RpcException(Code.INVALID_ARGUMENT, "process.args: must not be empty");
        }
        if (rec.execs.putIfAbsent(execId, ExecEntry.STARTING) != null) {
            throw new RpcException(Code.ALREADY_EXISTS, "exec " + execId + " already exists in " + rec.id);
        }
        String name = rec.id + "/" + execId;
        String handle = "exec-" + EXECS.incrementAndGet();
        boolean terminal = r.getProcess().getTerminal();
        ProcessIo io = null;
        ConsoleHandoff console = null;
        int pid = -1;
        boolean done = false;
        try (Container container = Container.load(ContainerStore.STATE_ROOT, rec.id)) {
            if (terminal) {
                console = ConsoleHandoff.listener(CONSOLE_SOCKETS, handle);
            } else {
                io = ProcessIo.pipes(name);
            }
            io.jrunc.spec.Process process = execProcess(container.config().process(), r.getProcess());
            Files.createDirectories(PID_FILES);
            Path pidFile = PID_FILES.resolve(handle + ".pid");
            Files.deleteIfExists(pidFile);
            ContainerExec.exec(container, new ExecOptions(process, pidFile, terminal ? console.path() : null, true,
                    0, false, terminal ? SpawnRequest.Stdio.INHERIT : io.childStdio(), ChildCgroupEntry.CHILD_MOVED));
            // From here the process exists: a failure below kills it (finally).
            pid = Integer.parseInt(Files.readString(pidFile).trim());
            Files.deleteIfExists(pidFile);
            if (terminal) {
                io = ProcessIo.terminal(name, ContainerService.receiveMaster(console, "exec " + name));
            } else {
                io.closeChildEnds();
            }
            rec.execs.put(execId, new ManagedProcess(rec.id, execId, pid, io, reaper));
            done = true;
            return ExecResponse.newBuilder().setPid(pid).build();
        } catch (ContainerException e) {
            throw new RpcException(Code.FAILED_PRECONDITION, e.getMessage());
        } catch (IOException e) {
            throw new RpcException(Code.INTERNAL, "exec: " + e.getMessage());
        } catch (RpcException e) {
            throw e;
        } catch (Exception e) {
            throw new RpcException(Code.INTERNAL, "exec: " + e);
        } finally {
            if (console != null) {
                console.close();
            }
            if (!done) {
                if (pid > 0) {
                    // the exec's process was made but the call fails: it must not run on unreported
                    signalQuietly(pid);
                    reaper.claim(pid);
                    Console.log("exec %s: failed after its process %d was made: killed", name, pid);
                }
                if (io != null) {
                    io.close();
                }
                rec.execs.remove(execId, ExecEntry.STARTING);
            }
        }
    }

    /**
     * The exec's process: the container's own, with what the request sets (args, terminal and its
     * size, and when given user, env and cwd) in place of it. The rest (capabilities, rlimits,
     * no_new_privileges, oomScoreAdj, scheduler, I/O priority, CPU affinity) is the container's, as
     * jrunc exec without --process has it.
     */
    static io.jrunc.spec.Process execProcess(io.jrunc.spec.Process base, ProcessSpec s) {
        io.jrunc.spec.Process.Builder process = base.toBuilder().terminal(s.getTerminal())
                .consoleSize(s.hasConsoleSize()
                        ? new io.jrunc.spec.Box(s.getConsoleSize().getRows(), s.getConsoleSize().getColumns()) : null)
                .args(s.getArgsList()).commandLine(null);
        if (s.hasUser()) {
            process.user(new io.jrunc.spec.User((long) s.getUser().getUid(), (long) s.getUser().getGid(), null,
                    s.getUser().getAdditionalGidsList().stream().map(Integer::longValue).toList(), null));
        }
        if (s.getEnvCount() > 0) {
            process.env(s.getEnvList());
        }
        if (!s.getCwd().isEmpty()) {
            process.cwd(s.getCwd());
        }
        return process.build();
    }

    private static void signalQuietly(int pid) {
        try {
            Processes.kill(pid, Signals.SIGKILL);
        } catch (ErrnoException e) {
            // gone already
        }
    }

    private SignalResponse signal(SignalRequest r) throws RpcException {
        ManagedProcess p = process(r.getProcess());
        if (r.getAllProcesses()) {
            if (!r.getProcess().getExecId().isEmpty()) {
                throw new RpcException(Code.INVALID_ARGUMENT, "all_processes: only for a container's own process");
            }
            try (Container container = Container.load(ContainerStore.STATE_ROOT, p.containerId)) {
                container.kill(r.getSignal(), true);
            } catch (ContainerException e) {
                throw new RpcException(Code.FAILED_PRECONDITION, e.getMessage());
            }
            return SignalResponse.getDefaultInstance();
        }
        if (p.exit.isDone()) {
            throw new RpcException(Code.FAILED_PRECONDITION, "the process has exited");
        }
        try {
            Processes.kill(p.pid, r.getSignal());
        } catch (ErrnoException e) {
            throw new RpcException(e.is(Errno.ESRCH) ? Code.FAILED_PRECONDITION : Code.INVALID_ARGUMENT,
                    "signal " + r.getSignal() + ": " + e.getMessage());
        }
        return SignalResponse.getDefaultInstance();
    }
}
