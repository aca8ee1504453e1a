package io.jrunc.shim.host;

import io.jrunc.bindings.Errno;
import io.jrunc.bindings.ErrnoException;
import io.jrunc.bindings.FileDescriptors;
import io.jrunc.bindings.Processes;
import io.jrunc.bindings.Signals;
import io.jrunc.bindings.Terminals;
import io.jrunc.cgroups.CgroupMode;
import io.jrunc.cgroups.CgroupStats;
import io.jrunc.runtime.ConsoleHandoff;
import io.jrunc.runtime.Container;
import io.jrunc.runtime.ContainerCreator;
import io.jrunc.runtime.ContainerException;
import io.jrunc.runtime.ContainerExec;
import io.jrunc.runtime.ContainerId;
import io.jrunc.runtime.CreateOptions;
import io.jrunc.runtime.ExecOptions;
import io.jrunc.runtime.ProcStat;
import io.jrunc.runtime.Status;
import io.jrunc.runtime.init.ChildCgroupEntry;
import io.jrunc.shim.ProcessExit;
import io.jrunc.shim.RootfsMounts;
import io.jrunc.shim.ShimSharing;
import io.jrunc.shim.TaskBackend;
import io.jrunc.shim.TaskEvents;
import io.jrunc.shim.TaskRequests;
import io.jrunc.shim.TaskStats;
import io.jrunc.shim.TaskStatus;
import io.jrunc.spec.LinuxResources;
import io.jrunc.spec.Spec;
import io.jrunc.spec.SpecException;
import io.jrunc.spec.SpecReader;
import io.jrunc.ttrpc.Code;
import io.jrunc.ttrpc.RpcException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Containers on the host, made by the runtime library in the shim's JVM (the same library as the
 * jrunc binary's and the guest agent's): no process is started per call. Each containerd namespace
 * gets a state root of its own, {@code BASE/NAMESPACE} ({@code /run/containerd/jrunc/NS} by default),
 * so {@code jrunc --root /run/containerd/jrunc/NS list} shows its tasks.
 */
public final class HostTaskBackend implements TaskBackend {
    /** Where the state roots of the namespaces are by default, as containerd's runc shim uses /run/containerd/runc. */
    public static final Path DEFAULT_BASE = ShimSharing.DEFAULT_HOST_ROOT;
    private static final Object RESERVED = new Object();
    private static final AtomicLong HANDLES = new AtomicLong();

    private final TaskEvents events;
    private final Path base;
    /** This shim's exec pid files and console sockets. */
    private final Path scratch;
    private final Map<String, Object> tasks = new ConcurrentHashMap<>();
    private final OrphanSweep orphans;
    private final OomWatch<HostTask> oom;

    public HostTaskBackend(TaskEvents events) {
        this(events, DEFAULT_BASE);
    }

    /**
     * With the settings of the runtime options' {@code [host]} table: {@code root}, an absolute
     * directory for the per-namespace state roots (default /run/containerd/jrunc).
     */
    public HostTaskBackend(TaskEvents events, Map<String, String> settings) {
        this(events, base(settings));
    }

    private static Path base(Map<String, String> settings) {
        for (String key : settings.keySet()) {
            if (!key.equals("root") && !ShimSharing.KEYS.contains(key)) {
                throw new IllegalArgumentException("host." + key + ": unknown setting (the host back end takes root, shim and linger)");
            }
        }
        String root = settings.get("root");
        if (root == null) {
            return DEFAULT_BASE;
        }
        Path path = Path.of(root);
        if (!path.isAbsolute() || !path.normalize().equals(path)) {
            throw new IllegalArgumentException("host.root: " + root + " is not an absolute, normalised path");
        }
        return path;
    }

    /** With {@code base} holding the per-namespace state roots (tests use a temporary one). */
    public HostTaskBackend(TaskEvents events, Path base) {
        this.events = events;
        this.base = base;
        this.scratch = base.resolve(".shim-" + ProcessHandle.current().pid());
        this.orphans = OrphanSweep.start();
        this.oom = OomWatch.start(this::oomNotifier, this::checkOom);
    }

    // ---- create ----

    @Override
    public int create(TaskRequests.Create request) throws RpcException {
        String id = request.id();
        validateId("id", id);
        validateId("namespace", request.namespace());
        Path bundle = request.bundle();
        if (bundle == null || !bundle.isAbsolute()) {
            throw new RpcException(Code.INVALID_ARGUMENT, "bundle: must be an absolute path, not " + bundle);
        }
        if (!Files.isRegularFile(bundle.resolve("config.json"))) {
            throw new RpcException(Code.INVALID_ARGUMENT, "bundle: " + bundle + " has no config.json");
        }
        if (tasks.putIfAbsent(id, RESERVED) != null) {
            throw new RpcException(Code.ALREADY_EXISTS, "task " + id + " already exists");
        }
        Path root = base.resolve(request.namespace());
        List<Path> mounts = List.of();
        ProcessStdio io = null;
        ConsoleHandoff console = null;
        int pid = -1;
        boolean created = false;
        try {
            mounts = RootfsMounts.mount(bundle.resolve("rootfs"), request.rootfs());
            Spec spec;
            try {
                spec = ContainerCreator.loadBundle(id, bundle);
            } catch (ContainerException e) {
                throw new RpcException(Code.INVALID_ARGUMENT, e.getMessage());
            }
            boolean terminal = spec.process() != null && Boolean.TRUE.equals(spec.process().terminal());
            io = terminal ? ProcessStdio.terminal(request.stdio()) : ProcessStdio.pipes(id, request.stdio());
            console = terminal ? ConsoleHandoff.pair() : null;
            try {
                Files.createDirectories(root);
            } catch (IOException e) {
                throw new RpcException(Code.INTERNAL, "state root " + root + ": " + e.getMessage());
            }
            try (Container container = ContainerCreator.create(root, new CreateOptions(id, bundle, null, null, false,
                    false, 0, terminal ? console.runtimeEnd() : -1, io.childStdio(), ChildCgroupEntry.CHILD_MOVED),
                    false, spec)) {
                pid = container.state().pid();
            } catch (ContainerException e) {
                throw new RpcException(e.getMessage().contains("already exists") ? Code.ALREADY_EXISTS
                        : Code.FAILED_PRECONDITION, e.getMessage());
            } finally {
                io.closeChildEnds();
            }
            // the process exists: a failure from here kills it and deletes the container (finally)
            if (terminal) {
                io.attachTerminal(id, receiveMaster(console, "task " + id));
            }
            HostProcess init = new HostProcess(id, "", request.stdio(), null);
            init.io = io;
            init.pid = pid;
            HostTask task = new HostTask(id, root, bundle, mounts, init);
            watch(init);
            tasks.put(id, task);
            oom.add(task);
            created = true;
            return pid;
        } catch (RuntimeException e) {
            throw new RpcException(Code.INTERNAL, "create " + id + ": " + e.getMessage());
        } finally {
            if (console != null) {
                console.close();
            }
            if (!created) {
                if (pid > 0) {
                    discard(root, id, pid);
                }
                if (io != null) {
                    io.close();
                }
                RootfsMounts.unmount(mounts);
                tasks.remove(id, RESERVED);
            }
        }
    }

    /**
     * What containerd's {@code shim delete} needs after a shim died: the task's container, in the
     * state root of its namespace under {@code base}, deleted with the runtime library (every process
     * of its cgroup SIGKILLed, the cgroup and the state directory removed; a create that died half-way
     * undone from its journal). The rootfs is the caller's to unmount. Returns the init's pid, 0 when
     * no state was left to tell it.
     */
    public static int deleteAfterDeadShim(Path base, String namespace, String id) throws RpcException {
        validateId("namespace", namespace);
        validateId("id", id);
        removeDeadShimsScratch(base);
        Path root = base.resolve(namespace);
        try (Container container = Container.load(root, id)) {
            int pid = container.state().pid();
            container.delete(true);
            return pid;
        } catch (ContainerException e) {
            try {
                io.jrunc.runtime.ContainerDirectory.removeHalfCreated(root, id);
            } catch (ContainerException | java.io.UncheckedIOException e2) {
                throw new RpcException(Code.INTERNAL, "delete " + id + ": " + e2.getMessage());
            }
            return 0;
        }
    }

    /**
     * The scratch directories ({@code .shim-PID}: exec pid files, console sockets) of shims that are
     * gone: a shim removes its own at close, a SIGKILLed one cannot. A shim that is a zombie counts as
     * gone: containerd runs this delete as soon as the dead shim's connection closes, often before
     * the shim's parent has collected it. A directory whose pid runs is kept, whoever that is now.
     */
    static void removeDeadShimsScratch(Path base) {
        try (var entries = Files.newDirectoryStream(base, ".shim-*")) {
            for (Path dir : entries) {
                String pid = dir.getFileName().toString().substring(".shim-".length());
                if (!pid.matches("[0-9]{1,9}")) {
                    continue;
                }
                ProcStat stat = ProcStat.read(Integer.parseInt(pid)); // a zombie is not alive()
                if (stat == null || !stat.alive()) {
                    io.jrunc.bindings.FileTrees.delete(dir);
                }
            }
        } catch (IOException | RuntimeException e) {
            // no base yet, or a directory another delete removed meanwhile: nothing more to clean
        }
    }

    private static void validateId(String field, String value) throws RpcException {
        try {
            ContainerId.validate(value);
        } catch (ContainerException e) {
            throw new RpcException(Code.INVALID_ARGUMENT, field + ": " + e.getMessage());
        }
    }

    private static int receiveMaster(ConsoleHandoff console, String what) throws RpcException {
        try {
            return console.receiveMaster();
        } catch (IllegalStateException | ErrnoException e) {
            throw new RpcException(Code.INTERNAL, what + ": the terminal: " + e.getMessage());
        }
    }

    /** A container made whose create then failed here: killed, deleted, and its status collected. */
    private static void discard(Path root, String id, int pid) {
        try (Container container = Container.load(root, id)) {
            container.delete(true);
        } catch (RuntimeException e) {
            signalQuietly(pid, Signals.SIGKILL);
        }
        try {
            Processes.waitpid(pid, Processes.__WALL);
        } catch (ErrnoException ignored) {
            // collected already
        }
    }

    /**
     * Collects the process's exit and reports it once, after a terminal's output is copied. Always on a
     * thread of its own: the OOM look takes the container's lock, which the caller (an exec's Start) may
     * hold, and a process that already exited would otherwise be handled on the caller's thread.
     */
    private void watch(HostProcess p) {
        ExitWatch.watch(p.pid).whenCompleteAsync((exit, failure) -> {
            ProcessExit done = exit != null ? exit : new ProcessExit(p.pid, 255, Instant.now());
            if (p.io != null) {
                p.io.awaitOutput(2000);
            }
            // An OOM kill ends the process before the watch's next look: the oom event must come
            // before the exit it caused, so the counter is read once more here.
            if (tasks.get(p.taskId) instanceof HostTask task) {
                checkOom(task);
            }
            // the sink hears of it before a Wait returns it: one watch per process, so exactly once
            events.exited(p.taskId, p.execId, done);
            p.exit.complete(done);
        }, r -> Thread.ofVirtual().name("exited-" + p.pid).start(r));
    }

    // ---- lookups ----

    private HostTask task(String id) throws RpcException {
        if (tasks.get(id) instanceof HostTask t) {
            return t;
        }
        throw new RpcException(Code.NOT_FOUND, "task " + id + " not found");
    }

    private HostProcess process(String id, String execId) throws RpcException {
        HostTask task = task(id);
        if (execId == null || execId.isEmpty()) {
            return task.init;
        }
        HostProcess p = task.execs.get(execId);
        if (p == null) {
            throw new RpcException(Code.NOT_FOUND, "exec " + execId + " of task " + id + " not found");
        }
        return p;
    }

    private static Container load(HostTask task) throws RpcException {
        try {
            return Container.load(task.root, task.id);
        } catch (ContainerException e) {
            throw new RpcException(Code.NOT_FOUND, "task " + task.id + ": " + e.getMessage());
        }
    }

    // ---- start, exec ----

    @Override
    public int start(String id, String execId) throws RpcException {
        HostTask task = task(id);
        if (execId == null || execId.isEmpty()) {
            synchronized (task) {
                try (Container container = load(task)) {
                    container.start();
                } catch (ContainerException e) {
                    throw new RpcException(Code.FAILED_PRECONDITION, "start " + id + ": " + e.getMessage());
                }
            }
            return task.init.pid;
        }
        HostProcess p = process(id, execId);
        synchronized (p) {
            if (p.started()) {
                throw new RpcException(Code.FAILED_PRECONDITION, "exec " + execId + " of task " + id + " was started already");
            }
            startExec(task, p);
        }
        return p.pid;
    }

    @Override
    public void exec(TaskRequests.Exec request) throws RpcException {
        HostTask task = task(request.id());
        validateId("exec_id", request.execId());
        io.jrunc.spec.Process spec;
        try {
            spec = SpecReader.readProcess(request.processJson());
        } catch (SpecException e) {
            throw new RpcException(Code.INVALID_ARGUMENT, "process: " + e.getMessage());
        }
        if (spec.args() == null || spec.args().isEmpty()) {
            throw new RpcException(Code.INVALID_ARGUMENT, "process.args: must not be empty");
        }
        if (task.init.exited() || status(task) != Status.RUNNING) {
            throw new RpcException(Code.FAILED_PRECONDITION, "task " + task.id + " is not running");
        }
        HostProcess p = new HostProcess(task.id, request.execId(), request.stdio(), spec);
        if (task.execs.putIfAbsent(request.execId(), p) != null) {
            throw new RpcException(Code.ALREADY_EXISTS, "exec " + request.execId() + " of task " + task.id + " already exists");
        }
    }

    private Status status(HostTask task) throws RpcException {
        try (Container container = load(task)) {
            return container.status();
        }
    }

    /** Runs the exec's process with the runtime library (detached), its pid read from a pid file. */
    private void startExec(HostTask task, HostProcess p) throws RpcException {
        if (task.init.exited()) {
            throw new RpcException(Code.FAILED_PRECONDITION, "task " + task.id + " is not running");
        }
        String handle = "exec-" + HANDLES.incrementAndGet();
        boolean terminal = Boolean.TRUE.equals(p.spec.terminal());
        ProcessStdio io = null;
        ConsoleHandoff console = null;
        int pid = -1;
        boolean done = false;
        Path pidFile = scratch.resolve(handle + ".pid");
        try (Container container = load(task)) {
            Files.createDirectories(scratch);
            io = terminal ? ProcessStdio.terminal(p.stdio) : ProcessStdio.pipes(task.id + "/" + p.execId, p.stdio);
            console = terminal ? ConsoleHandoff.listener(scratch, handle) : null;
            try {
                ContainerExec.exec(container, new ExecOptions(p.spec, pidFile, terminal ? console.path() : null, true,
                        0, false, io.childStdio(), ChildCgroupEntry.CHILD_MOVED));
            } finally {
                io.closeChildEnds();
            }
            pid = Integer.parseInt(Files.readString(pidFile).trim());
            if (terminal) {
                io.attachTerminal(task.id + "/" + p.execId, receiveMaster(console, "exec " + p.execId));
            }
            p.io = io;
            p.pidfd = Processes.pidfdOpen(pid);
            p.pid = pid;
            watch(p);
            done = true;
        } catch (ContainerException e) {
            throw new RpcException(Code.FAILED_PRECONDITION, "exec " + p.execId + ": " + e.getMessage());
        } catch (RpcException e) {
            throw e;
        } catch (Exception e) {
            throw new RpcException(Code.INTERNAL, "exec " + p.execId + ": " + e.getMessage());
        } finally {
            deleteQuietly(pidFile);
            if (console != null) {
                console.close();
            }
            if (!done) {
                if (pid > 0) {
                    signalQuietly(pid, Signals.SIGKILL);
                    try {
                        Processes.waitpid(pid, Processes.__WALL);
                    } catch (ErrnoException ignored) {
                        // collected already
                    }
                }
                if (io != null) {
                    io.close();
                }
            }
        }
    }

    // ---- state ----

    @Override
    public TaskStatus state(String id, String execId) throws RpcException {
        HostTask task = task(id);
        HostProcess p = process(id, execId);
        ProcessExit exit = p.exit.getNow(null);
        TaskStatus.Phase phase;
        if (exit != null) {
            phase = TaskStatus.Phase.STOPPED;
        } else if (p == task.init) {
            phase = switch (status(task)) {
                case CREATED -> TaskStatus.Phase.CREATED;
                case RUNNING -> TaskStatus.Phase.RUNNING;
                case PAUSED -> TaskStatus.Phase.PAUSED;
                case STOPPED -> TaskStatus.Phase.STOPPED;
            };
        } else {
            phase = p.started() ? TaskStatus.Phase.RUNNING : TaskStatus.Phase.CREATED;
        }
        return new TaskStatus(id, p.execId, p.pid, phase, p.stdio, exit);
    }

    @Override
    public ProcessExit await(String id, String execId) throws RpcException {
        HostProcess p = process(id, execId);
        try {
            return p.exit.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RpcException(Code.CANCELLED, "wait for " + id + ": interrupted");
        } catch (ExecutionException e) {
            throw new RpcException(Code.INTERNAL, "wait for " + id + ": " + e.getCause());
        }
    }

    // ---- signals ----

    @Override
    public void kill(String id, String execId, int signal, boolean all) throws RpcException {
        HostTask task = task(id);
        HostProcess p = process(id, execId);
        if (p == task.init) {
            if (!all && p.exited()) {
                throw new RpcException(Code.NOT_FOUND, "process already finished");
            }
            try (Container container = load(task)) {
                container.kill(signal, all);
            } catch (ContainerException e) {
                if (!all) {
                    throw new RpcException(Code.NOT_FOUND, "kill " + id + ": " + e.getMessage());
                }
            }
            return;
        }
        if (!p.started()) {
            throw new RpcException(Code.FAILED_PRECONDITION, "exec " + execId + " of task " + id + " was not started");
        }
        synchronized (p) {
            if (p.exited() || p.pidfd < 0) {
                throw new RpcException(Code.NOT_FOUND, "process already finished");
            }
            try {
                Processes.pidfdSendSignal(p.pidfd, signal);
            } catch (ErrnoException e) {
                throw new RpcException(e.is(Errno.ESRCH) ? Code.NOT_FOUND : Code.INVALID_ARGUMENT,
                        e.is(Errno.ESRCH) ? "process already finished" : "kill " + execId + ": " + e.getMessage());
            }
        }
    }

    private static void signalQuietly(int pid, int signal) {
        try {
            Processes.kill(pid, signal);
        } catch (ErrnoException ignored) {
            // gone already
        }
    }

    // ---- delete ----

    @Override
    public ProcessExit delete(String id, String execId) throws RpcException {
        HostTask task = task(id);
        if (execId != null && !execId.isEmpty()) {
            HostProcess p = process(id, execId);
            if (p.started() && !p.exited()) {
                throw new RpcException(Code.FAILED_PRECONDITION, "exec " + execId + " of task " + id + " is running");
            }
            task.execs.remove(execId, p);
            release(p);
            return p.started() ? p.exit.join() : new ProcessExit(0, 0, Instant.now());
        }
        synchronized (task) {
            HostProcess init = task.init;
            if (!init.exited()) {
                Status status = status(task);
                if (status == Status.RUNNING || status == Status.PAUSED) {
                    throw new RpcException(Code.FAILED_PRECONDITION, "task " + id + " is " + status.wire()
                            + ": kill it before delete");
                }
            }
            oom.remove(task); // a last look before the cgroup goes
            try (Container container = load(task)) {
                container.delete(true); // a created task: SIGKILL, then cgroup and state
            } catch (ContainerException | RpcException e) {
                // the state is gone already: the mounts are still ours to undo
            }
            ProcessExit exit = awaitQuietly(init, 15_000);
            for (HostProcess p : task.execs.values()) {
                awaitQuietly(p, 2_000);
                release(p);
            }
            if (init.io != null) {
                init.io.close();
            }
            RootfsMounts.unmount(task.mounts);
            tasks.remove(id, task);
            return exit;
        }
    }

    /** An exec's streams and pidfd closed (its record is going). */
    private static void release(HostProcess p) {
        synchronized (p) {
            if (p.io != null) {
                p.io.close();
            }
            FileDescriptors.closeQuietly(p.pidfd);
            p.pidfd = -1;
        }
    }

    private static ProcessExit awaitQuietly(HostProcess p, long millis) {
        if (!p.started()) {
            return new ProcessExit(0, 0, Instant.now());
        }
        try {
            return p.exit.get(millis, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            // reported as unknown below
        }
        return new ProcessExit(p.pid, 255, Instant.now());
    }

    // ---- the rest ----

    @Override
    public List<TaskStatus.ProcessPid> pids(String id) throws RpcException {
        HostTask task = task(id);
        List<TaskStatus.ProcessPid> pids = new ArrayList<>();
        try (Container container = load(task)) {
            for (long pid : container.processes()) {
                String execId = "";
                for (HostProcess p : task.execs.values()) {
                    if (p.pid == pid) {
                        execId = p.execId;
                    }
                }
                pids.add(new TaskStatus.ProcessPid((int) pid, execId));
            }
        } catch (ContainerException e) {
            throw new RpcException(Code.FAILED_PRECONDITION, "pids " + id + ": " + e.getMessage());
        }
        return pids;
    }

    @Override
    public void pause(String id) throws RpcException {
        HostTask task = task(id);
        try (Container container = load(task)) {
            container.pause();
        } catch (ContainerException e) {
            throw new RpcException(Code.FAILED_PRECONDITION, "pause " + id + ": " + e.getMessage());
        }
    }

    @Override
    public void resume(String id) throws RpcException {
        HostTask task = task(id);
        try (Container container = load(task)) {
            container.resume();
        } catch (ContainerException e) {
            throw new RpcException(Code.FAILED_PRECONDITION, "resume " + id + ": " + e.getMessage());
        }
    }

    @Override
    public void update(String id, byte[] linuxResourcesJson) throws RpcException {
        HostTask task = task(id);
        LinuxResources resources;
        try {
            resources = SpecReader.readResources(linuxResourcesJson);
        } catch (SpecException e) {
            throw new RpcException(Code.INVALID_ARGUMENT, "resources: " + e.getMessage());
        }
        try (Container container = load(task)) {
            container.update(resources);
        } catch (ContainerException e) {
            throw new RpcException(Code.FAILED_PRECONDITION, "update " + id + ": " + e.getMessage());
        }
    }

    @Override
    public TaskStats stats(String id) throws RpcException {
        HostTask task = task(id);
        CgroupStats s;
        long oomKills;
        try (Container container = load(task)) {
            s = container.stats();
            oomKills = container.oomEvents().oomKill();
        } catch (ContainerException e) {
            throw new RpcException(Code.FAILED_PRECONDITION, "stats " + id + ": " + e.getMessage());
        }
        CgroupStats.Memory m = s.memory();
        return new TaskStats(CgroupMode.detect() == CgroupMode.UNIFIED,
                s.cpu().usage().total(), s.cpu().usage().user(), s.cpu().usage().kernel(),
                m.usage().usage(), m.usage().limit(), m.swap().usage(), m.swap().limit(),
                s.pids().current(), s.pids().limit(), oomKills);
    }

    @Override
    public void resizePty(String id, String execId, int width, int height) throws RpcException {
        HostProcess p = process(id, execId);
        ProcessStdio io = p.io;
        if (io == null || io.master() < 0) {
            throw new RpcException(Code.FAILED_PRECONDITION, "process " + id + "/" + execId + " has no terminal");
        }
        try {
            Terminals.setSize(io.master(), height, width);
        } catch (ErrnoException e) {
            throw new RpcException(Code.FAILED_PRECONDITION, "resize " + id + ": " + e.getMessage());
        }
    }

    @Override
    public void closeStdin(String id, String execId) throws RpcException {
        HostProcess p = process(id, execId);
        if (p.io != null) {
            p.io.closeStdin();
        }
    }

    @Override
    public int taskPid(String id) throws RpcException {
        return task(id).init.pid;
    }

    @Override
    public boolean empty() {
        return tasks.isEmpty();
    }

    /** Stops the shim's own threads and descriptors; the containers are containerd's to delete. */
    @Override
    public void close() {
        oom.stop();
        orphans.stop();
        for (Object o : tasks.values()) {
            if (o instanceof HostTask t) {
                if (t.init.io != null) {
                    t.init.io.close();
                }
                t.execs.values().forEach(HostTaskBackend::release);
            }
        }
        deleteQuietly(scratch);
    }

    /** The kernel's OOM notice for a task's cgroup, for the OOM watch to wait on. */
    private java.util.Optional<io.jrunc.cgroups.OomNotifier> oomNotifier(HostTask task) {
        try (Container container = Container.load(task.root, task.id)) {
            return container.oomNotifier();
        }
    }

    /** The OOM watch's look at one task: an oom_kill counter that went up is one event. */
    private synchronized void checkOom(HostTask task) {
        long kills;
        try (Container container = Container.load(task.root, task.id)) {
            kills = container.oomEvents().oomKill();
        } catch (RuntimeException e) {
            return; // deleted meanwhile
        }
        if (kills > task.oomKills) {
            task.oomKills = kills;
            events.oom(task.id);
        }
    }

    private static void deleteQuietly(Path path) {
        try {
            Files.deleteIfExists(path);
        } catch (IOException ignored) {
            // a directory not empty or gone: nothing to keep clean
        }
    }
}
