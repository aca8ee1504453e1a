package io.jrunc.shim.vm;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.jrunc.agent.api.pb.v1.ConsoleSize;
import io.jrunc.agent.api.pb.v1.ContainerStatsResponse;
import io.jrunc.agent.api.pb.v1.ExitStatus;
import io.jrunc.agent.api.pb.v1.ProcessSpec;
import io.jrunc.agent.api.pb.v1.User;
import io.jrunc.shim.ProcessExit;
import io.jrunc.shim.RootfsMounts;
import io.jrunc.shim.TaskBackend;
import io.jrunc.shim.TaskEvents;
import io.jrunc.shim.TaskRequests;
import io.jrunc.shim.TaskStats;
import io.jrunc.shim.TaskStatus;
import io.jrunc.ttrpc.Code;
import io.jrunc.ttrpc.RpcException;
import io.jrunc.vm.BootedPod;
import io.jrunc.vm.Pods;
import io.jrunc.vm.VmException;
import io.jrunc.vm.monitor.MonitorLink;
import io.jrunc.vm.state.StateRoot;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The VM back end: the tasks of one shim in pod VMs, one VM per sandbox, through jrunc-vm's library
 * ({@link BootedPod}) in the shim's JVM.
 *
 * <ul>
 * <li>A CRI sandbox ({@code io.kubernetes.cri.container-type: sandbox}) boots its pod and is the pod
 * itself: no pause process runs in the guest (the VM is what holds the pod's namespaces: one network,
 * which the guest's containers share, and one kernel). Its task's pid is qemu's; a signal that ends a
 * process ends its "process" (exit 128+N), and the VM goes when its last task is deleted.
 * <li>A container of a containerd group ({@code io.containerd.runc.v2.group}, whose containers share
 * one shim) joins the group's pod; the first one boots it.
 * <li>A plain container ({@code ctr run}, no CRI annotations, no group) boots a pod of its own and runs in it.
 * <li>A CRI container joins its sandbox's pod ({@code io.kubernetes.cri.sandbox-id}).
 * </ul>
 *
 * <p>A container's root is bundle/rootfs on the host (containerd's snapshot, mounted here when the
 * request carries mounts), shared into the guest by virtio-fs: nothing is copied. Its stdio is copied
 * between containerd's fifos and the agent's streams; each exit is the agent's Wait, reported once,
 * after the process's output; an OOM kill the guest's cgroup counted is reported before the exit.
 * Creates are serialised (a sandbox's boot takes its time, and members come after it).
 */
public final class VmTaskBackend implements TaskBackend {
    /**
     * Where the back end keeps its pods and how it starts their monitors.
     *
     * @param stateRoot   jrunc-vm's state root ({@code /run/jrunc-vm}: `jrunc-vm pod ls` shows the pods)
     * @param starter     starts a pod's monitor process
     * @param bootTimeout how long a VM may take to come up
     * @param image       the VM image's directory; null: found as jrunc-vm finds it ($JRUNC_VM_IMAGE,
     *                    then share/jrunc-vm or build/vm-image above jrunc-vm's jar)
     */
    public record Settings(Path stateRoot, MonitorLink.Starter starter, Duration bootTimeout, Path image) {
        public static final Settings DEFAULTS = new Settings(Path.of("/run/jrunc-vm"), MonitorLink::startProcess,
                Duration.ofSeconds(180), null);
    }

    private static final ObjectMapper JSON = new ObjectMapper();

    private final TaskEvents events;
    private final Pods pods;
    private final Path image;
    /** Where a container's config rewritten for the guest is kept ({@link GuestBundle}), one directory each. */
    private final Path rewrites;
    private final Object creates = new Object();
    private final Map<String, VmTask> tasks = new LinkedHashMap<>();
    private final Map<String, Sandbox> sandboxes = new LinkedHashMap<>();

    /** One pod VM and the tasks in it. */
    private static final class Sandbox {
        final String key;
        final BootedPod pod;
        final Set<String> tasks = new LinkedHashSet<>();

        Sandbox(String key, BootedPod pod) {
            this.key = key;
            this.pod = pod;
        }
    }

    /** A task: its sandbox, its container in the guest (null for a sandbox, which is the pod), its processes. */
    private static final class VmTask {
        final String id;
        final Sandbox sandbox;
        final String container;
        final List<Path> mounts;
        final VmProcess init;
        final Map<String, VmProcess> execs = new LinkedHashMap<>();
        volatile boolean deleting;
        /** Frozen by Pause (the guest's cgroup freezer) and not yet resumed. */
        volatile boolean paused;

        VmTask(String id, Sandbox sandbox, String container, List<Path> mounts, VmProcess init) {
            this.id = id;
            this.sandbox = sandbox;
            this.container = container;
            this.mounts = mounts;
            this.init = init;
        }
    }

    public VmTaskBackend(TaskEvents events) {
        this(events, Settings.DEFAULTS);
    }

    /**
     * With the settings of the runtime options' {@code [vm]} table, each optional: {@code root} (the
     * state root, absolute), {@code image} (the VM image's directory, absolute), {@code boot_timeout}
     * (seconds). Any other key is refused by name.
     */
    public VmTaskBackend(TaskEvents events, Map<String, String> settings) {
        this(events, settings(settings));
    }

    static Settings settings(Map<String, String> given) {
        Settings d = Settings.DEFAULTS;
        for (String key : given.keySet()) {
            if (!Set.of("root", "image", "boot_timeout").contains(key)) {
                throw new IllegalArgumentException("vm." + key + ": unknown setting (the VM back end takes root, image, boot_timeout)");
            }
        }
        Path root = given.containsKey("root") ? absolute("vm.root", given.get("root")) : d.stateRoot();
        Path image = given.containsKey("image") ? absolute("vm.image", given.get("image")) : d.image();
        Duration boot = d.bootTimeout();
        if (given.containsKey("boot_timeout")) {
            try {
                boot = Duration.ofSeconds(Long.parseLong(given.get("boot_timeout")));
            } catch (NumberFormatException e) {
                boot = Duration.ZERO;
            }
            if (boot.isZero() || boot.isNegative()) {
                throw new IllegalArgumentException("vm.boot_timeout: " + given.get("boot_timeout") + " is not a positive number of seconds");
            }
        }
        return new Settings(root, d.starter(), boot, image);
    }

    private static Path absolute(String key, String value) {
        Path path = Path.of(value);
        if (!path.isAbsolute() || !path.normalize().equals(path)) {
            throw new IllegalArgumentException(key + ": " + value + " is not an absolute, normalised path");
        }
        return path;
    }

    public VmTaskBackend(TaskEvents events, Settings settings) {
        this.events = events;
        this.image = settings.image();
        this.rewrites = settings.stateRoot().resolve("shim-bundles");
        StateRoot root = new StateRoot(settings.stateRoot());
        this.pods = new Pods(root, new MonitorLink(root, settings.starter(), settings.bootTimeout()));
    }

    @Override
    public int create(TaskRequests.Create request) throws RpcException {
        String id = request.id();
        synchronized (creates) {
            synchronized (this) {
                if (tasks.containsKey(id)) {
                    throw new RpcException(Code.ALREADY_EXISTS, "task " + id + " already exists");
                }
            }
            Path bundle = request.bundle().toAbsolutePath().normalize();
            PodPlan plan = PodPlan.read(id, bundle);
            String namespace = request.namespace() == null ? "" : request.namespace();
            Sandbox sandbox;
            boolean booted = false;
            synchronized (this) {
                sandbox = sandboxes.get(namespace + "/" + plan.sandboxKey());
            }
            PodPlan.Membership membership = plan.membership();
            if (membership == PodPlan.Membership.SANDBOX || membership == PodPlan.Membership.OWN) {
                if (sandbox != null) {
                    throw new RpcException(Code.ALREADY_EXISTS, "sandbox " + plan.sandboxKey() + " already has a pod");
                }
            } else if (sandbox == null && membership == PodPlan.Membership.MEMBER) {
                throw new RpcException(Code.NOT_FOUND, "sandbox " + plan.sandboxKey() + " of task " + id
                        + " has no pod in this shim");
            }
            List<Path> mounts = RootfsMounts.mount(bundle.resolve("rootfs"), request.rootfs());
            VmTask task = null;
            try {
                if (sandbox == null) {
                    sandbox = new Sandbox(namespace + "/" + plan.sandboxKey(), boot(plan, namespace));
                    booted = true;
                }
                VmProcess init = new VmProcess(id, "", request.stdio(), null);
                if (plan.sandbox()) {
                    init.pid = (int) sandbox.pod.qemuPid();
                    task = new VmTask(id, sandbox, null, mounts, init);
                } else {
                    String container = PodPlan.vmName("t", namespace, id);
                    GuestBundle.Prepared prepared = GuestBundle.prepare(bundle, rewrites.resolve(container));
                    init.pid = sandbox.pod.add(container, prepared.bundle(), prepared.shares());
                    task = new VmTask(id, sandbox, container, mounts, init);
                    init.attach(sandbox.pod.streams(container, ""));
                    watch(task, init);
                }
            } catch (VmException | IOException | RpcException | RuntimeException e) {
                if (task != null && task.container != null) {
                    removeQuietly(sandbox, task.container);
                }
                deleteTree(rewrites.resolve(PodPlan.vmName("t", namespace, id)));
                if (booted) {
                    closeQuietly(sandbox);
                }
                RootfsMounts.unmount(mounts);
                throw rpc("create " + id, e);
            }
            synchronized (this) {
                sandboxes.put(sandbox.key, sandbox);
                sandbox.tasks.add(id);
                tasks.put(id, task);
            }
            return task.init.pid;
        }
    }

    /**
     * What containerd's `shim delete` needs after the shim died while its pod ran (its caller has
     * checked that no live shim answers on the group's socket, so nothing else holds the pod): the
     * task's pod, named from the bundle's config.json as {@link #create} named it, removed as
     * `jrunc-vm pod rm -f` removes a pod: qemu and the monitor SIGKILLed, every virtiofsd ended, the
     * tap and qdisc of a joined network namespace removed, the pod's state directory gone; and the
     * task's rewritten config. The first delete of a dead shim's tasks ends their pod; the others find
     * it gone. True when a pod was removed.
     *
     * @param settings the runtime options' {@code [vm]} table, as the shim was given it
     */
    public static boolean deleteAfterDeadShim(Map<String, String> settings, String namespace, String id, Path bundle)
            throws RpcException {
        Settings s = settings(settings);
        String ns = namespace == null ? "" : namespace;
        PodPlan plan;
        try {
            plan = PodPlan.read(id, bundle.toAbsolutePath().normalize());
        } catch (RpcException e) {
            return false; // no config.json: containerd's create never reached the shim, nothing was made
        }
        StateRoot root = new StateRoot(s.stateRoot());
        String pod = PodPlan.vmName("p", ns, plan.sandboxKey());
        deleteTree(s.stateRoot().resolve("shim-bundles").resolve(PodPlan.vmName("t", ns, id)));
        try {
            if (gone(root, pod)) {
                return false;
            }
            new Pods(root, new MonitorLink(root, s.starter(), s.bootTimeout())).remove(pod, true, Duration.ZERO);
            return true;
        } catch (VmException e) {
            if (gone(root, pod)) {
                return false; // another task's delete (containerd runs one per task of the dead shim) removed it first
            }
            throw new RpcException(Code.INTERNAL, "delete " + id + ": removing its pod " + pod + ": " + e.getMessage());
        }
    }

    private static boolean gone(StateRoot root, String pod) {
        try {
            return root.pod(pod).isEmpty() && !Files.isDirectory(root.podDir(pod));
        } catch (VmException e) {
            return false;
        }
    }

    private BootedPod boot(PodPlan plan, String namespace) throws VmException {
        return BootedPod.boot(pods, new BootedPod.Spec(PodPlan.vmName("p", namespace, plan.sandboxKey()), plan.cpus(),
                plan.memoryBytes(), plan.swapBytes(), plan.hostname(), plan.netns(), image));
    }

    /**
     * The agent's Wait for the process, on a thread of its own; its exit reported once, after its
     * output and before Wait answers ({@link VmProcess#exited(int, long, java.util.function.Consumer)}).
     * An OOM kill the guest's cgroup counted for a container's own process is reported first.
     */
    private void watch(VmTask task, VmProcess process) {
        Thread.ofVirtual().name("wait-" + task.id + "-" + process.execId).start(() -> {
            try {
                ExitStatus status = task.sandbox.pod.await(task.container, process.execId);
                if (process.execId.isEmpty() && process.started && oomKilled(task)) {
                    events.oom(task.id);
                }
                process.exited(status, exit -> events.exited(task.id, process.execId, exit));
            } catch (VmException e) {
                // the container was removed or its VM ended under the wait: killed
                process.exited(128 + 9, 0, task.deleting ? null : exit -> events.exited(task.id, process.execId, exit));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
    }

    private static boolean oomKilled(VmTask task) {
        try {
            return task.sandbox.pod.stats(task.container).getMemory().getEvents().getOomKill() > 0;
        } catch (VmException e) {
            return false;
        }
    }

    @Override
    public int start(String id, String execId) throws RpcException {
        VmTask task = task(id);
        VmProcess p = process(task, execId);
        synchronized (p) {
            if (p.started) {
                throw new RpcException(Code.FAILED_PRECONDITION, "process " + describe(id, execId) + " is already started");
            }
            try {
                if (task.container == null) {
                    p.started = true; // the sandbox is its pod, which runs
                    return p.pid;
                }
                if (execId.isEmpty()) {
                    p.started = true; // before the agent's Start: an exit at once is then reported
                    task.sandbox.pod.start(task.container);
                } else {
                    if (task.init.exit.isDone()) {
                        throw new RpcException(Code.FAILED_PRECONDITION, "task " + id + " is stopped: no exec into it");
                    }
                    if (task.paused) {
                        throw new RpcException(Code.FAILED_PRECONDITION, "task " + id + " is paused: no exec into it (resume it first)");
                    }
                    p.pid = task.sandbox.pod.exec(task.container, execId, p.execSpec);
                    p.started = true;
                    p.attach(task.sandbox.pod.streams(task.container, execId));
                    watch(task, p);
                }
                return p.pid;
            } catch (VmException | IOException e) {
                if (execId.isEmpty()) {
                    p.started = false;
                }
                throw rpc("start " + describe(id, execId), e);
            }
        }
    }

    @Override
    public void exec(TaskRequests.Exec request) throws RpcException {
        VmTask task = task(request.id());
        if (task.container == null) {
            throw new RpcException(Code.FAILED_PRECONDITION, "task " + request.id() + " is a pod sandbox: no process runs in it to exec into");
        }
        if (request.execId().isEmpty()) {
            throw new RpcException(Code.INVALID_ARGUMENT, "exec id: must be set");
        }
        if (task.init.exit.isDone()) {
            throw new RpcException(Code.FAILED_PRECONDITION, "task " + request.id() + " is stopped: no exec into it");
        }
        ProcessSpec spec = processSpec(request.processJson(), request.stdio().terminal());
        synchronized (this) {
            if (task.execs.containsKey(request.execId())) {
                throw new RpcException(Code.ALREADY_EXISTS, "exec " + request.execId() + " of task " + request.id() + " already exists");
            }
            task.execs.put(request.execId(), new VmProcess(request.id(), request.execId(), request.stdio(), spec));
        }
    }

    /** OCI Process JSON as the agent's ProcessSpec: args, env, cwd, user, terminal and its size. */
    static ProcessSpec processSpec(byte[] json, boolean terminal) throws RpcException {
        JsonNode p;
        try {
            p = JSON.readTree(json);
        } catch (IOException e) {
            throw new RpcException(Code.INVALID_ARGUMENT, "exec process: does not parse: " + e.getMessage());
        }
        ProcessSpec.Builder b = ProcessSpec.newBuilder();
        p.path("args").forEach(a -> b.addArgs(a.asText()));
        if (b.getArgsCount() == 0) {
            throw new RpcException(Code.INVALID_ARGUMENT, "exec process: args must not be empty");
        }
        p.path("env").forEach(e -> b.addEnv(e.asText()));
        b.setCwd(p.path("cwd").asText(""));
        JsonNode user = p.path("user");
        if (user.isObject()) {
            User.Builder u = User.newBuilder().setUid(user.path("uid").asInt(0)).setGid(user.path("gid").asInt(0));
            user.path("additionalGids").forEach(g -> u.addAdditionalGids(g.asInt()));
            b.setUser(u);
        }
        b.setTerminal(terminal || p.path("terminal").asBoolean(false));
        JsonNode size = p.path("consoleSize");
        if (size.isObject()) {
            b.setConsoleSize(ConsoleSize.newBuilder().setRows(size.path("height").asInt()).setColumns(size.path("width").asInt()));
        }
        return b.build();
    }

    @Override
    public TaskStatus state(String id, String execId) throws RpcException {
        VmTask task = task(id);
        TaskStatus status = process(task, execId).status();
        if (task.paused && status.phase() == TaskStatus.Phase.RUNNING) {
            return new TaskStatus(status.id(), status.execId(), status.pid(), TaskStatus.Phase.PAUSED, status.stdio(), status.exit());
        }
        return status;
    }

    @Override
    public ProcessExit delete(String id, String execId) throws RpcException {
        VmTask task = task(id);
        VmProcess p = process(task, execId);
        if (p.started && !p.exit.isDone()) {
            throw new RpcException(Code.FAILED_PRECONDITION, "process " + describe(id, execId) + " is running: kill it first");
        }
        if (!execId.isEmpty()) {
            synchronized (this) {
                task.execs.remove(execId);
            }
            return p.exit.getNow(new ProcessExit(p.pid, 0, java.time.Instant.now()));
        }
        task.deleting = true;
        try {
            if (task.container != null) {
                task.sandbox.pod.remove(task.container);
            }
        } catch (VmException e) {
            throw rpc("delete " + id, e);
        }
        // a created process removed before its start: killed (runc's delete of a created container)
        p.exited(128 + 9, 0, null);
        RootfsMounts.unmount(task.mounts);
        removeRewrite(task);
        Sandbox last = null;
        synchronized (this) {
            tasks.remove(id);
            task.sandbox.tasks.remove(id);
            if (task.sandbox.tasks.isEmpty()) {
                sandboxes.remove(task.sandbox.key);
                last = task.sandbox;
            }
        }
        if (last != null) {
            try {
                last.pod.close();
            } catch (VmException e) {
                throw rpc("delete " + id + ": ending its pod", e);
            }
        }
        return p.exit.join();
    }

    @Override
    public void kill(String id, String execId, int signal, boolean all) throws RpcException {
        VmTask task = task(id);
        VmProcess p = process(task, execId);
        if (p.exit.isDone()) {
            throw new RpcException(Code.NOT_FOUND, "process " + describe(id, execId) + " already finished");
        }
        if (task.container == null) {
            // the sandbox's "process" is the pod: a signal that would end a pause process ends it
            if (signal != 0) {
                p.exited(128 + signal, 0, exit -> events.exited(id, execId, exit));
            }
            return;
        }
        if (!execId.isEmpty() && !p.started) {
            throw new RpcException(Code.FAILED_PRECONDITION, "exec " + execId + " of task " + id + " is not started");
        }
        try {
            task.sandbox.pod.signal(task.container, execId, signal, all);
        } catch (VmException e) {
            throw rpc("kill " + describe(id, execId), e);
        }
    }

    @Override
    public ProcessExit await(String id, String execId) throws RpcException {
        VmProcess p = process(task(id), execId);
        try {
            return p.awaitExit();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RpcException(Code.CANCELLED, "wait for " + describe(id, execId) + " interrupted");
        }
    }

    @Override
    public List<TaskStatus.ProcessPid> pids(String id) throws RpcException {
        VmTask task = task(id);
        List<TaskStatus.ProcessPid> out = new ArrayList<>();
        if (task.init.pid > 0 && !task.init.exit.isDone()) {
            out.add(new TaskStatus.ProcessPid(task.init.pid, ""));
        }
        synchronized (this) {
            for (VmProcess e : task.execs.values()) {
                if (e.started && !e.exit.isDone()) {
                    out.add(new TaskStatus.ProcessPid(e.pid, e.execId));
                }
            }
        }
        return out;
    }

    /** The agent's Pause: the container's cgroup frozen in the guest; State says PAUSED until Resume. */
    @Override
    public void pause(String id) throws RpcException {
        setFrozen(id, true);
    }

    @Override
    public void resume(String id) throws RpcException {
        setFrozen(id, false);
    }

    private void setFrozen(String id, boolean frozen) throws RpcException {
        VmTask task = container(id);
        synchronized (task) {
            try {
                if (frozen) {
                    task.sandbox.pod.pause(task.container);
                } else {
                    task.sandbox.pod.resume(task.container);
                }
            } catch (VmException e) {
                throw rpc((frozen ? "pause " : "resume ") + id, e);
            }
            task.paused = frozen;
        }
    }

    @Override
    public void update(String id, byte[] linuxResourcesJson) throws RpcException {
        VmTask task = container(id);
        JsonNode memory;
        try {
            memory = JSON.readTree(linuxResourcesJson).path("memory");
        } catch (IOException e) {
            throw new RpcException(Code.INVALID_ARGUMENT, "update resources: do not parse: " + e.getMessage());
        }
        Long limit = memory.hasNonNull("limit") ? memory.get("limit").asLong() : null;
        Long swap = memory.hasNonNull("swap") ? memory.get("swap").asLong() : null;
        if (limit == null && swap == null) {
            return; // the guest applies memory limits alone
        }
        try {
            task.sandbox.pod.update(task.container, limit, swap);
        } catch (VmException e) {
            throw rpc("update " + id, e);
        }
    }

    @Override
    public TaskStats stats(String id) throws RpcException {
        VmTask task = container(id);
        ContainerStatsResponse s;
        try {
            s = task.sandbox.pod.stats(task.container);
        } catch (VmException e) {
            throw rpc("stats " + id, e);
        }
        var m = s.getMemory();
        var c = s.getCpu();
        return new TaskStats(true, c.getUsageUsec() * 1000, c.getUserUsec() * 1000, c.getSystemUsec() * 1000,
                m.getCurrent(), m.hasLimit() ? m.getLimit() : -1, m.hasSwapCurrent() ? m.getSwapCurrent() : -1,
                m.hasSwapLimit() ? m.getSwapLimit() : -1, s.getPids().getCurrent(),
                s.getPids().hasLimit() ? s.getPids().getLimit() : -1, m.getEvents().getOomKill());
    }

    @Override
    public void resizePty(String id, String execId, int width, int height) throws RpcException {
        VmTask task = container(id);
        process(task, execId);
        try {
            task.sandbox.pod.resize(task.container, execId, height, width);
        } catch (VmException e) {
            throw rpc("resize " + describe(id, execId), e);
        }
    }

    @Override
    public void closeStdin(String id, String execId) throws RpcException {
        try {
            process(task(id), execId).closeStdin();
        } catch (IOException e) {
            throw new RpcException(Code.INTERNAL, e.getMessage());
        }
    }

    @Override
    public int taskPid(String id) throws RpcException {
        return task(id).init.pid;
    }

    @Override
    public synchronized boolean empty() {
        return tasks.isEmpty();
    }

    /** Ends every pod (qemu, monitor, virtiofsd, tap, state) and unmounts every rootfs. */
    @Override
    public void close() {
        List<VmTask> all;
        List<Sandbox> pods;
        synchronized (this) {
            all = List.copyOf(tasks.values());
            pods = List.copyOf(sandboxes.values());
            tasks.clear();
            sandboxes.clear();
        }
        all.forEach(t -> t.deleting = true);
        pods.forEach(VmTaskBackend::closeQuietly);
        all.forEach(t -> {
            RootfsMounts.unmount(t.mounts);
            removeRewrite(t);
        });
    }

    private synchronized VmTask task(String id) throws RpcException {
        VmTask t = tasks.get(id);
        if (t == null) {
            throw new RpcException(Code.NOT_FOUND, "task " + id + " not found");
        }
        return t;
    }

    /** A task with a container in the guest (a sandbox has none: its figures are the pod's). */
    private VmTask container(String id) throws RpcException {
        VmTask t = task(id);
        if (t.container == null) {
            throw new RpcException(Code.FAILED_PRECONDITION, "task " + id + " is a pod sandbox: it has no container in the VM");
        }
        return t;
    }

    private synchronized VmProcess process(VmTask task, String execId) throws RpcException {
        if (execId == null || execId.isEmpty()) {
            return task.init;
        }
        VmProcess p = task.execs.get(execId);
        if (p == null) {
            throw new RpcException(Code.NOT_FOUND, "exec " + execId + " of task " + task.id + " not found");
        }
        return p;
    }

    private static String describe(String id, String execId) {
        return execId == null || execId.isEmpty() ? id : id + " exec " + execId;
    }

    private void removeRewrite(VmTask task) {
        if (task.container != null) {
            deleteTree(rewrites.resolve(task.container));
        }
    }

    /** A rewritten config's directory (config.json alone: no links, no mounts), gone or never made. */
    private static void deleteTree(Path dir) {
        try {
            Files.deleteIfExists(dir.resolve("config.json"));
            Files.deleteIfExists(dir);
        } catch (IOException ignored) {
            // left for the next delete of the same name; nothing runs from it
        }
    }

    private static void removeQuietly(Sandbox sandbox, String container) {
        try {
            sandbox.pod.remove(container);
        } catch (VmException ignored) {
            // the create's own failure is what the caller needs to see
        }
    }

    private static void closeQuietly(Sandbox sandbox) {
        try {
            sandbox.pod.close();
        } catch (VmException ignored) {
            // ending what is left: nothing more to do about it here
        }
    }

    /**
     * An error for containerd: the agent's code when the failure came from it (NOT_FOUND,
     * FAILED_PRECONDITION, ...), else INTERNAL; the message one line naming the call.
     */
    static RpcException rpc(String what, Exception e) {
        if (e instanceof RpcException r) {
            return r;
        }
        Throwable cause = e.getCause();
        Code code = cause instanceof RpcException r ? r.code() : e instanceof VmException ? Code.FAILED_PRECONDITION : Code.INTERNAL;
        String message = e.getMessage() == null ? e.toString() : e.getMessage();
        return new RpcException(code, message.startsWith(what) ? message : what + ": " + message);
    }
}
