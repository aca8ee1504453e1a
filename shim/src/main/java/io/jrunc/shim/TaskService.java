package io.jrunc.shim;

import com.google.protobuf.Any;
import com.google.protobuf.Empty;
import io.jrunc.containerd.api.TaskMethods;
import io.jrunc.containerd.api.cgroups.v1.CPUUsage;
import io.jrunc.containerd.api.cgroups.v1.MemoryEntry;
import io.jrunc.containerd.api.cgroups.v1.MemoryOomControl;
import io.jrunc.containerd.api.cgroups.v2.MemoryEvents;
import io.jrunc.containerd.api.events.TaskCreate;
import io.jrunc.containerd.api.events.TaskIO;
import io.jrunc.containerd.api.task.v2.*;
import io.jrunc.containerd.api.types.Mount;
import io.jrunc.containerd.api.types.task.ProcessInfo;
import io.jrunc.containerd.api.types.task.Status;
import io.jrunc.ttrpc.CallContext;
import io.jrunc.ttrpc.Code;
import io.jrunc.ttrpc.Dispatcher;
import io.jrunc.ttrpc.RpcException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * containerd's task service ({@code containerd.task.v2.Task}) over a {@link TaskBackend}: each call
 * translated into the back end's terms and its answer back into containerd's messages, with the
 * events of {@link EventOrder}. Errors are the back end's {@link RpcException}s, whose codes
 * containerd maps to its errdefs (NOT_FOUND, ALREADY_EXISTS, FAILED_PRECONDITION, ...).
 */
public final class TaskService {
    /** Where a task's init pid is written, for {@code delete} after a shim that died (as runc's init.pid). */
    public static final String INIT_PID_FILE = "init.pid";
    static final String SHIM_VERSION = "jrunc-shim v2";
    private static final System.Logger LOG = System.getLogger(TaskService.class.getName());

    private final TaskBackend backend;
    private final EventOrder events;
    private final ShimOptions.Backend kind;
    private final String defaultNamespace;
    private final Runnable exitWhenEmpty;
    private final Map<String, Path> bundles = new ConcurrentHashMap<>();

    /**
     * @param kind             the back end this shim runs (a Create asking for the other is refused)
     * @param defaultNamespace the shim's -namespace, for calls without namespace metadata
     * @param exitWhenEmpty    what Shutdown does when no task is left (after its answer is sent)
     */
    public TaskService(TaskBackend backend, EventOrder events, ShimOptions.Backend kind, String defaultNamespace,
                       Runnable exitWhenEmpty) {
        this.backend = backend;
        this.events = events;
        this.kind = kind;
        this.defaultNamespace = defaultNamespace;
        this.exitWhenEmpty = exitWhenEmpty;
    }

    /** The back end's callbacks, which go through the event order. */
    public static TaskEvents callbacks(EventOrder events) {
        return new TaskEvents() {
            @Override
            public void exited(String id, String execId, ProcessExit exit) {
                events.exited(id, execId, exit);
            }

            @Override
            public void oom(String id) {
                events.oom(id);
            }
        };
    }

    public Dispatcher register(Dispatcher d) {
        return d.register(TaskMethods.CREATE, this::create)
                .register(TaskMethods.START, (c, r) -> start(r))
                .register(TaskMethods.DELETE, (c, r) -> delete(r))
                .register(TaskMethods.EXEC, (c, r) -> exec(r))
                .register(TaskMethods.STATE, (c, r) -> state(r))
                .register(TaskMethods.PIDS, (c, r) -> pids(r))
                .register(TaskMethods.PAUSE, (c, r) -> {
                    backend.pause(r.getId());
                    events.paused(r.getId());
                    return Empty.getDefaultInstance();
                })
                .register(TaskMethods.RESUME, (c, r) -> {
                    backend.resume(r.getId());
                    events.resumed(r.getId());
                    return Empty.getDefaultInstance();
                })
                .register(TaskMethods.CHECKPOINT, (c, r) -> {
                    throw new RpcException(Code.UNIMPLEMENTED, "checkpoint is not supported by io.containerd.jrunc.v2");
                })
                .register(TaskMethods.KILL, (c, r) -> {
                    debug("kill", r.getId(), r.getExecId(), "signal " + r.getSignal() + (r.getAll() ? " all" : ""));
                    backend.kill(r.getId(), r.getExecId(), r.getSignal(), r.getAll());
                    return Empty.getDefaultInstance();
                })
                .register(TaskMethods.RESIZE_PTY, (c, r) -> {
                    backend.resizePty(r.getId(), r.getExecId(), r.getWidth(), r.getHeight());
                    return Empty.getDefaultInstance();
                })
                .register(TaskMethods.CLOSE_IO, (c, r) -> {
                    if (r.getStdin()) {
                        backend.closeStdin(r.getId(), r.getExecId());
                    }
                    return Empty.getDefaultInstance();
                })
                .register(TaskMethods.UPDATE, (c, r) -> {
                    backend.update(r.getId(), r.getResources().getValue().toByteArray());
                    return Empty.getDefaultInstance();
                })
                .register(TaskMethods.WAIT, (c, r) -> {
                    ProcessExit exit = backend.await(r.getId(), r.getExecId());
                    WaitResponse.Builder w = WaitResponse.newBuilder().setExitStatus(exit.status());
                    if (exit.exitedAt() != null) {
                        w.setExitedAt(EventOrder.timestamp(exit.exitedAt()));
                    }
                    return w.build();
                })
                .register(TaskMethods.STATS, (c, r) -> StatsResponse.newBuilder().setStats(metrics(backend.stats(r.getId()))).build())
                .register(TaskMethods.CONNECT, (c, r) -> ConnectResponse.newBuilder()
                        .setShimPid((int) ProcessHandle.current().pid()).setTaskPid(backend.taskPid(r.getId()))
                        .setVersion(SHIM_VERSION).build())
                .register(TaskMethods.SHUTDOWN, (c, r) -> {
                    debug("shutdown", r.getId(), "", backend.empty() ? "no task left" : "tasks left");
                    if (backend.empty()) {
                        // after this answer is on its way: the process ends
                        Thread.ofVirtual().start(exitWhenEmpty);
                    }
                    return Empty.getDefaultInstance();
                });
    }

    /** A debug line per call that changes a task (the shim's log, with containerd's -debug). */
    private static void debug(String call, String id, String execId, String detail) {
        if (LOG.isLoggable(System.Logger.Level.DEBUG)) {
            LOG.log(System.Logger.Level.DEBUG, call + " " + id + (execId.isEmpty() ? "" : " exec " + execId)
                    + (detail.isEmpty() ? "" : ": " + detail));
        }
    }

    private String namespace(CallContext context) {
        List<String> values = context.metadata().get(EventPublisher.NAMESPACE_KEY);
        return values == null || values.isEmpty() ? defaultNamespace : values.getFirst();
    }

    private CreateTaskResponse create(CallContext context, CreateTaskRequest r) throws RpcException {
        String namespace = namespace(context);
        debug("create", r.getId(), "", "namespace " + namespace + ", bundle " + r.getBundle());
        ShimOptions options;
        try {
            options = r.hasOptions() ? ShimOptions.fromAny(r.getOptions()) : ShimOptions.DEFAULTS;
        } catch (ShimOptions.OptionsException e) {
            throw new RpcException(Code.INVALID_ARGUMENT, e.getMessage());
        }
        if (r.hasOptions() && options.backend() != kind) {
            throw new RpcException(Code.FAILED_PRECONDITION, "task " + r.getId() + " asks for the "
                    + options.backend().name().toLowerCase() + " back end, but its group's shim runs the "
                    + kind.name().toLowerCase() + " back end");
        }
        if (!r.getCheckpoint().isEmpty()) {
            throw new RpcException(Code.UNIMPLEMENTED, "restoring from a checkpoint is not supported by io.containerd.jrunc.v2");
        }
        Path bundle = Path.of(r.getBundle());
        if (!bundle.isAbsolute()) {
            throw new RpcException(Code.INVALID_ARGUMENT, "bundle " + r.getBundle() + " is not an absolute path");
        }
        if (!Files.isRegularFile(bundle.resolve("config.json"))) {
            throw new RpcException(Code.INVALID_ARGUMENT, "bundle " + bundle + " has no config.json");
        }
        List<TaskRequests.Mount> mounts = new ArrayList<>();
        for (Mount m : r.getRootfsList()) {
            mounts.add(new TaskRequests.Mount(m.getType(), m.getSource(), m.getTarget(), m.getOptionsList()));
        }
        TaskRequests.Stdio stdio = new TaskRequests.Stdio(r.getStdin(), r.getStdout(), r.getStderr(), r.getTerminal());
        int pid = backend.create(new TaskRequests.Create(r.getId(), bundle, namespace, mounts, stdio, options.settings()));
        bundles.put(r.getId(), bundle);
        try {
            Files.writeString(bundle.resolve(INIT_PID_FILE), Integer.toString(pid), StandardCharsets.US_ASCII);
        } catch (IOException e) {
            // only `delete` after a dead shim reads it, and it copes without
        }
        events.created(namespace, TaskCreate.newBuilder().setContainerId(r.getId()).setBundle(r.getBundle())
                .addAllRootfs(r.getRootfsList())
                .setIo(TaskIO.newBuilder().setStdin(r.getStdin()).setStdout(r.getStdout()).setStderr(r.getStderr())
                        .setTerminal(r.getTerminal()))
                .setPid(pid).build());
        return CreateTaskResponse.newBuilder().setPid(pid).build();
    }

    private StartResponse start(StartRequest r) throws RpcException {
        debug("start", r.getId(), r.getExecId(), "");
        events.starting(r.getId(), r.getExecId());
        int pid;
        try {
            pid = backend.start(r.getId(), r.getExecId());
        } catch (RpcException | RuntimeException e) {
            events.startFailed(r.getId(), r.getExecId());
            throw e;
        }
        events.started(r.getId(), r.getExecId(), pid);
        return StartResponse.newBuilder().setPid(pid).build();
    }

    private DeleteResponse delete(DeleteRequest r) throws RpcException {
        debug("delete", r.getId(), r.getExecId(), "");
        ProcessExit exit = backend.delete(r.getId(), r.getExecId());
        events.deleted(r.getId(), r.getExecId(), exit);
        if (r.getExecId().isEmpty()) {
            bundles.remove(r.getId());
        }
        DeleteResponse.Builder d = DeleteResponse.newBuilder().setPid(exit.pid()).setExitStatus(exit.status());
        if (exit.exitedAt() != null) {
            d.setExitedAt(EventOrder.timestamp(exit.exitedAt()));
        }
        return d.build();
    }

    private Empty exec(ExecProcessRequest r) throws RpcException {
        debug("exec", r.getId(), r.getExecId(), "");
        if (r.getExecId().isEmpty()) {
            throw new RpcException(Code.INVALID_ARGUMENT, "exec_id is empty");
        }
        TaskRequests.Stdio stdio = new TaskRequests.Stdio(r.getStdin(), r.getStdout(), r.getStderr(), r.getTerminal());
        backend.exec(new TaskRequests.Exec(r.getId(), r.getExecId(), stdio, r.getSpec().getValue().toByteArray()));
        events.execAdded(r.getId(), r.getExecId());
        return Empty.getDefaultInstance();
    }

    private StateResponse state(StateRequest r) throws RpcException {
        TaskStatus s = backend.state(r.getId(), r.getExecId());
        Path bundle = bundles.get(r.getId());
        StateResponse.Builder b = StateResponse.newBuilder().setId(r.getId()).setExecId(r.getExecId())
                .setBundle(bundle == null ? "" : bundle.toString()).setPid(s.pid())
                .setStatus(Status.forNumber(s.phase().ordinal()));
        if (s.stdio() != null) {
            b.setStdin(s.stdio().stdin()).setStdout(s.stdio().stdout()).setStderr(s.stdio().stderr())
                    .setTerminal(s.stdio().terminal());
        }
        if (s.exit() != null) {
            b.setExitStatus(s.exit().status());
            if (s.exit().exitedAt() != null) {
                b.setExitedAt(EventOrder.timestamp(s.exit().exitedAt()));
            }
        }
        return b.build();
    }

    private PidsResponse pids(PidsRequest r) throws RpcException {
        PidsResponse.Builder b = PidsResponse.newBuilder();
        for (TaskStatus.ProcessPid p : backend.pids(r.getId())) {
            b.addProcesses(ProcessInfo.newBuilder().setPid(p.pid()));
        }
        return b.build();
    }

    /** containerd's cgroups Metrics of the stats' hierarchy, in an Any named as containerd's typeurl does. */
    static Any metrics(TaskStats s) {
        if (s.cgroupV2()) {
            var m = io.jrunc.containerd.api.cgroups.v2.Metrics.newBuilder()
                    .setPids(io.jrunc.containerd.api.cgroups.v2.PidsStat.newBuilder()
                            .setCurrent(figure(s.pidsCurrent())).setLimit(figure(s.pidsLimit())))
                    .setCpu(io.jrunc.containerd.api.cgroups.v2.CPUStat.newBuilder()
                            .setUsageUsec(figure(s.cpuUsageNanos()) / 1000).setUserUsec(figure(s.cpuUserNanos()) / 1000)
                            .setSystemUsec(figure(s.cpuSystemNanos()) / 1000))
                    .setMemory(io.jrunc.containerd.api.cgroups.v2.MemoryStat.newBuilder()
                            .setUsage(figure(s.memoryUsageBytes())).setUsageLimit(figure(s.memoryLimitBytes()))
                            .setSwapUsage(figure(s.swapUsageBytes())).setSwapLimit(figure(s.swapLimitBytes())))
                    .setMemoryEvents(MemoryEvents.newBuilder().setOomKill(figure(s.oomKills())))
                    .build();
            return Any.newBuilder().setTypeUrl(m.getDescriptorForType().getFullName()).setValue(m.toByteString()).build();
        }
        var m = io.jrunc.containerd.api.cgroups.v1.Metrics.newBuilder()
                .setPids(io.jrunc.containerd.api.cgroups.v1.PidsStat.newBuilder()
                        .setCurrent(figure(s.pidsCurrent())).setLimit(figure(s.pidsLimit())))
                .setCpu(io.jrunc.containerd.api.cgroups.v1.CPUStat.newBuilder().setUsage(CPUUsage.newBuilder()
                        .setTotal(figure(s.cpuUsageNanos())).setUser(figure(s.cpuUserNanos()))
                        .setKernel(figure(s.cpuSystemNanos()))))
                .setMemory(io.jrunc.containerd.api.cgroups.v1.MemoryStat.newBuilder()
                        .setUsage(MemoryEntry.newBuilder().setUsage(figure(s.memoryUsageBytes()))
                                .setLimit(figure(s.memoryLimitBytes())))
                        .setSwap(MemoryEntry.newBuilder().setUsage(figure(s.swapUsageBytes()))
                                .setLimit(figure(s.swapLimitBytes()))))
                .setMemoryOomControl(MemoryOomControl.newBuilder().setOomKill(figure(s.oomKills())))
                .build();
        return Any.newBuilder().setTypeUrl(m.getDescriptorForType().getFullName()).setValue(m.toByteString()).build();
    }

    /** A figure the back end lacks (-1) is sent as 0, containerd's "unset". */
    private static long figure(long value) {
        return Math.max(0, value);
    }
}
