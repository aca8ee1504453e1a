package io.jrunc.vm;

import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.protobuf.ByteString;
import io.jrunc.agent.api.AgentClient;
import io.jrunc.agent.api.AgentMethods;
import io.jrunc.agent.api.pb.v1.CloseStdinRequest;
import io.jrunc.agent.api.pb.v1.ContainerState;
import io.jrunc.agent.api.pb.v1.ContainerStatsRequest;
import io.jrunc.agent.api.pb.v1.ContainerStatsResponse;
import io.jrunc.agent.api.pb.v1.InspectContainerRequest;
import io.jrunc.agent.api.pb.v1.ProcessRef;
import io.jrunc.agent.api.pb.v1.SignalRequest;
import io.jrunc.agent.api.pb.v1.StopContainerRequest;
import io.jrunc.agent.api.pb.v1.WaitRequest;
import io.jrunc.spec.JsonNodes;
import io.jrunc.ttrpc.Code;
import io.jrunc.ttrpc.RpcException;
import io.jrunc.vm.monitor.MonitorLink;
import io.jrunc.vm.monitor.MonitorMethods;
import io.jrunc.vm.monitor.pb.AddContainerRequest;
import io.jrunc.vm.monitor.pb.RemoveContainerRequest;
import io.jrunc.vm.monitor.pb.Share;
import io.jrunc.vm.monitor.pb.StartContainerRequest;
import io.jrunc.vm.qemu.SwapDisk;
import io.jrunc.vm.qemu.Virtiofsd;
import io.jrunc.vm.spec.Bundle;
import io.jrunc.vm.spec.LayerImage;
import io.jrunc.vm.spec.MountPoints;
import io.jrunc.vm.spec.PodVolumeMount;
import io.jrunc.vm.spec.RootfsImage;
import io.jrunc.vm.spec.ShareMounts;
import io.jrunc.vm.spec.SpecBuilder;
import io.jrunc.vm.state.ContainerRecord;
import io.jrunc.vm.state.HostShare;
import io.jrunc.vm.state.PodRecord;
import io.jrunc.vm.state.StateRoot;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Containers in pods: create (bundle -> spec builder -> ext4 image -> the pod's VM, booted if this is
 * its first container), start, stop, kill, remove, list, inspect, stats. Names are unique across pods;
 * a stopped container keeps its name until removed. A container that names no pod gets an anonymous
 * pod, named before the container is made and removed with it. Whatever fails during create leaves
 * nothing behind: no state directory, no image file, no anonymous pod, no VM it started.
 */
public final class Containers {
    /**
     * What `create` and `run` were asked for; sizes parsed.
     *
     * @param swapBytes   the swap cap (swap alone); -1: none
     * @param consoleSize the caller's terminal for a {@code terminal} process (null when unknown), its
     *                    size from the start
     * @param hostDirectories {@code -v|--volume HOSTDIR:CTRPATH}: host directories it shares
     * @param network     the anonymous pod's network flags (`--network`, `--publish`); refused with a pod
     * @param readOnly    {@code --read-only}: the root read-only whatever the bundle says (no layer)
     * @param layerBytes  the writable layer's size ({@code --layer-size})
     * @param podVolumes  {@code -v|--volume NAME:CTRPATH}: the pod's volumes it mounts
     * @param rootShare   {@code --rootfs-share}: the bundle's rootfs directory shared into the guest by
     *                    virtio-fs as the container's root, instead of an ext4 image made of it; its
     *                    writes go to that directory (no layer)
     */
    public record Spec(String pod, String name, long memoryBytes, double cpus, Path bundle, List<String> args,
                       boolean terminal, boolean stdin, long swapBytes, ConsoleSize consoleSize,
                       List<VolumeFlag.HostDirectory> hostDirectories, Pods.NetworkSpec network, boolean readOnly,
                       long layerBytes, List<PodVolumeMount> podVolumes, boolean rootShare) {
        public Spec {
            hostDirectories = hostDirectories == null ? List.of() : List.copyOf(hostDirectories);
            network = network == null ? Pods.NetworkSpec.DEFAULT : network;
            podVolumes = podVolumes == null ? List.of() : List.copyOf(podVolumes);
        }

        public Spec(String pod, String name, long memoryBytes, double cpus, Path bundle, List<String> args,
                    boolean terminal, boolean stdin, long swapBytes, ConsoleSize consoleSize,
                    List<VolumeFlag.HostDirectory> hostDirectories, Pods.NetworkSpec network, boolean readOnly,
                    long layerBytes, List<PodVolumeMount> podVolumes) {
            this(pod, name, memoryBytes, cpus, bundle, args, terminal, stdin, swapBytes, consoleSize, hostDirectories,
                    network, readOnly, layerBytes, podVolumes, false);
        }

        public Spec(String pod, String name, long memoryBytes, double cpus, Path bundle, List<String> args,
                    boolean terminal, boolean stdin, long swapBytes, ConsoleSize consoleSize,
                    List<VolumeFlag.HostDirectory> hostDirectories, Pods.NetworkSpec network) {
            this(pod, name, memoryBytes, cpus, bundle, args, terminal, stdin, swapBytes, consoleSize, hostDirectories,
                    network, false, LayerImage.DEFAULT_BYTES, List.of());
        }

        public Spec(String pod, String name, long memoryBytes, double cpus, Path bundle, List<String> args,
                    boolean terminal, boolean stdin, long swapBytes, ConsoleSize consoleSize) {
            this(pod, name, memoryBytes, cpus, bundle, args, terminal, stdin, swapBytes, consoleSize, List.of(),
                    Pods.NetworkSpec.DEFAULT);
        }
    }

    /**
     * How long the CLI waits for the guest: a create (the hot-plug and the agent's Create, or the
     * removal that aborts one), and a query (inspect, the state `ls` shows). A query that times out is
     * an error, never a container taken for gone.
     */
    public record Timeouts(Duration create, Duration query) {
        public static final Timeouts DEFAULTS = new Timeouts(Duration.ofSeconds(120), Duration.ofSeconds(30));
    }

    /** A terminal's size in characters. */
    public record ConsoleSize(int rows, int columns) {
    }

    private final Pods pods;
    private final StateRoot root;
    private final Timeouts timeouts;
    private final PodPool pool;

    public Containers(Pods pods) {
        this(pods, Timeouts.DEFAULTS);
    }

    public Containers(Pods pods, Timeouts timeouts) {
        this(pods, timeouts, new PodPool(pods, io.jrunc.vm.config.ConfigFile.Defaults.BUILT_IN));
    }

    /** With the warm pool {@code pool}: an anonymous pod is taken from it when one is the same. */
    public Containers(Pods pods, Timeouts timeouts, PodPool pool) {
        this.pods = pods;
        this.root = pods.root();
        this.timeouts = timeouts;
        this.pool = pool;
    }

    public ContainerRecord require(String name) throws VmException {
        return root.container(name).orElseThrow(() -> new VmException("container \"" + name + "\" does not exist"));
    }

    @SuppressWarnings("try") // the resource is a lock held for the block
    public ContainerRecord create(Spec spec) throws VmException {
        String name = spec.name() == null ? Names.random("c-") : Names.require(spec.name(), "container name");
        if (spec.cpus() < 0) {
            throw new VmException("invalid --cpus " + spec.cpus() + ": must be positive");
        }
        if (spec.pod() != null && !spec.network().isDefault()) {
            throw new VmException("--network and --publish are the pod's: give them to pod create " + spec.pod()
                    + ", not to a container that joins it");
        }
        LayerImage.require(spec.layerBytes(), "--layer-size");
        Bundle bundle = Bundle.load(spec.bundle());
        PodRecord named = spec.pod() == null ? null : pods.require(spec.pod());
        List<PodVolumeMount> volumes = podVolumes(spec.podVolumes(), named);
        ObjectNode config = SpecBuilder.build(bundle, new SpecBuilder.Overrides(spec.memoryBytes(), spec.cpus(), spec.args(),
                named == null ? null : named.config().hostname(), spec.swapBytes(), spec.readOnly(), volumes));
        List<HostShare> shares = new ArrayList<>();
        if (spec.rootShare()) {
            shares.add(rootShare(bundle, config));
        }
        for (VolumeFlag.HostDirectory d : spec.hostDirectories()) {
            shares.add(new HostShare(Names.random("fs"), d.hostPath().toString(), d.containerPath(), d.readOnly()));
        }
        if (!shares.isEmpty()) {
            // virtiofsd's socket goes in the pod's directory: a Unix socket's path has 107 bytes at most
            Path socket = Virtiofsd.socket(root.podDir(named != null ? named.name() : Names.random("anon-")), shares.getFirst().tag());
            if (socket.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8).length > 107) {
                throw new VmException("invalid --volume: the socket path " + socket + " would be longer than 107 bytes"
                        + " (a shorter --root or pod name)");
            }
        }
        ShareMounts.add(config, shares);
        if (spec.readOnly()) {
            MountPoints.requireInImage(bundle, config);
        }
        // without --pod, the container's --swap is its anonymous pod's area too (and it may use all of it)
        long anonymousSwap = named == null && spec.swapBytes() > 0 ? SwapDisk.require(spec.swapBytes(), "--swap") : 0;
        // an anonymous pod's network, from the container's flags (the default: user-mode)
        PodRecord.Network anonymousNetwork = named == null ? spec.network().resolve() : null;
        if (spec.terminal()) {
            ObjectNode process = config.withObjectProperty("process").put("terminal", true);
            if (spec.consoleSize() != null) {
                // the pty is made with this size (OCI process.consoleSize, as docker's create sends the
                // caller's), so the process never sees a 0x0 terminal before a resize could arrive
                process.putObject("consoleSize").put("height", spec.consoleSize().rows()).put("width", spec.consoleSize().columns());
            }
        }

        PodRecord pod;
        ContainerRecord record;
        StateRoot.Held creating;
        StateRoot.Held fromPool = null;
        PodRecord taken = null;
        try (AutoCloseable ignored = root.lock()) {
            root.container(name).ifPresent(c -> {
                throw new NameTaken("the container name \"" + name + "\" is already in use (pod " + c.pod() + ")");
            });
            if (named != null) {
                pod = pods.require(named.name());
            } else {
                PodRecord.Config wanted = anonymousConfig(spec.cpus(), spec.memoryBytes(), anonymousSwap, name, anonymousNetwork);
                // a booted pod of the pool when one is the same (a container that shares host
                // directories has them plugged at the boot of a pod of its own)
                Optional<PodPool.Taken> pooled = shares.isEmpty() ? pool.take(wanted, name) : Optional.empty();
                if (pooled.isPresent()) {
                    pod = pooled.get().pod();
                    taken = pod;
                    fromPool = pooled.get().creating();
                } else {
                    pod = PodRecord.created(Names.random("anon-"), true, wanted);
                    root.write(pod);
                }
            }
            // held to the end of this call: `pod prune` leaves the pod alone while it is not booted yet
            // (a pod taken from the pool is held from its taking on)
            creating = fromPool != null ? fromPool : root.creating(pod.name());
            // a root shared by virtio-fs has no disk, so no serial
            record = new ContainerRecord(name, pod.name(), bundle.dir().toString(), spec.rootShare() ? "" : Names.serial(), spec.args(),
                    System.currentTimeMillis(), "creating", 0, shares);
            root.write(record);
        } catch (Exception e) {
            if (fromPool != null) {
                // taken but given no container: nobody would ever remove its VM
                fromPool.close();
                undoCreate(taken, name, null);
            }
            if (e instanceof NameTaken) {
                throw new VmException(e.getMessage());
            }
            if (e instanceof VmException v) {
                throw v;
            }
            throw new VmException("cannot create container " + name + ": " + e.getMessage(), e);
        }
        if (named == null) {
            config.put("hostname", pod.config().hostname());
        }

        Path dir = root.containerDir(pod.name(), name);
        Pods.Before before = null;
        try (creating) {
            byte[] configBytes = SpecBuilder.toBytes(config);
            Files.write(dir.resolve("config.json"), configBytes);
            if (!pods.running(pod)) {
                Pods.image(pod); // no VM image: say so before making an image file
            }
            before = pods.before(pod.name(), name);
            // an idle pod's monitor starts now and boots the VM while the disks are made (they are
            // hot-plugged after the boot); a failure below ends that VM (undoCreate)
            Pods.Launch launched = before.active() ? null : pods.launch(pod.name());
            if (!spec.rootShare()) {
                makeDisks(bundle, dir, SpecBuilder.writable(config) ? spec.layerBytes() : 0);
            }
            int guestPid;
            try (AgentClient monitor = pods.start(pod.name(), launched)) {
                if (fromPool != null) {
                    // the pool's pod was configured with its own name: now it is this container's
                    monitor.call(AgentMethods.Pod.CONFIGURE, io.jrunc.vm.monitor.PodMonitor.configure(pod), timeouts.query());
                }
                guestPid = monitor.call(MonitorMethods.ADD_CONTAINER, addRequest(dir, record, configBytes), timeouts.create()).getPid();
            } catch (RpcException e) {
                if (before.active() && !pod.anonymous() && !abortInGuest(pod, record)) {
                    // the guest may yet make it: kept as "creating", which ls shows and rm -f removes
                    throw new Kept(new VmException("create " + name + ": " + e.getMessage() + "; the guest may still make it,"
                            + " so it is kept (ls shows it as creating): remove it with rm -f " + name, e));
                }
                throw agentError("create " + name, e);
            }
            record = record.created(guestPid);
            root.write(record);
            return record;
        } catch (Kept k) {
            throw k.error;
        } catch (IOException | VmException | RuntimeException e) {
            undoCreate(pod, name, before);
            if (e instanceof VmException v) {
                throw v;
            }
            throw new VmException("cannot create container " + name + ": " + e.getMessage(), e);
        }
    }

    /**
     * An anonymous pod's configuration: sized for its one container (its CPUs rounded up, its memory
     * limit; 1 CPU and the default pod memory without them), its hostname the container's name.
     */
    static PodRecord.Config anonymousConfig(double cpus, long memoryBytes, long swapBytes, String hostname,
                                            PodRecord.Network network) {
        return PodRecord.Config.of(cpus > 0 ? (int) Math.ceil(cpus) : 1,
                memoryBytes > 0 ? memoryBytes : io.jrunc.vm.qemu.QemuCommand.DEFAULT_POD_MEMORY, hostname)
                .withSwap(swapBytes).withNetwork(network);
    }

    /**
     * The container's image and, when {@code layerBytes} is not 0, its writable layer: the two mkfs run
     * at once (the layer's on a thread of its own, a platform thread: mkfs's parent-death signal is
     * tied to the thread that started it, which must outlive it).
     */
    private static void makeDisks(Bundle bundle, Path dir, long layerBytes) throws VmException {
        if (layerBytes == 0) {
            RootfsImage.make(bundle.rootfs(), dir.resolve("rootfs.img"));
            return;
        }
        VmException[] layerError = new VmException[1];
        Thread layer = Thread.ofPlatform().name("mkfs-layer").start(() -> {
            try {
                LayerImage.make(LayerImage.file(dir), layerBytes);
            } catch (VmException e) {
                layerError[0] = e;
            }
        });
        try {
            RootfsImage.make(bundle.rootfs(), dir.resolve("rootfs.img"));
        } finally {
            boolean interrupted = false;
            while (true) {
                try {
                    layer.join();
                    break;
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
        if (layerError[0] != null) {
            throw layerError[0];
        }
    }

    /**
     * The pod's volumes that {@code -v NAME:CTRPATH} mounts, each one the pod has. A pod volume needs a
     * named pod (an anonymous pod is made for one container and has no volumes: `pod create --volume`
     * makes them).
     */
    private List<PodVolumeMount> podVolumes(List<PodVolumeMount> given, PodRecord named) throws VmException {
        for (PodVolumeMount p : given) {
            if (named == null) {
                throw new VmException("invalid --volume " + p.name() + ":" + p.target() + ": a pod volume needs --pod"
                        + " (an anonymous pod has no volumes; make them with pod create --volume)");
            }
            if (!PodVolumes.exists(root.podDir(named.name()), p.name())) {
                throw new VmException("invalid --volume " + p.name() + ":" + p.target() + ": pod " + named.name()
                        + " has no volume " + p.name() + " (pod create --volume " + p.name() + ")");
            }
        }
        return given;
    }

    /**
     * The monitor's AddContainer for a container whose create left its state in {@code dir}: its spec,
     * image and disk serial, its shared directories, and its writable layer when it has one (a
     * read-only root has none).
     */
    static AddContainerRequest addRequest(Path dir, ContainerRecord c, byte[] config) {
        AddContainerRequest.Builder b = AddContainerRequest.newBuilder().setId(c.name())
                .setOciConfig(ByteString.copyFrom(config));
        for (HostShare s : c.shares()) {
            b.addShares(Share.newBuilder().setTag(s.tag()).setHostPath(s.hostPath()));
            if (s.root()) {
                b.setRootShare(s.tag());
            }
        }
        if (b.getRootShare().isEmpty()) {
            b.setImage(dir.resolve("rootfs.img").toString()).setSerial(c.serial());
        }
        if (LayerImage.exists(dir)) {
            b.setLayerImage(LayerImage.file(dir).toString()).setLayerSerial(LayerImage.serial(c.serial()));
        }
        return b.build();
    }

    /** The monitor's RemoveContainer for the record: its disks (image, layer) and shared directories go with it. */
    private RemoveContainerRequest removeRequest(ContainerRecord c, boolean force) throws VmException {
        String layer = LayerImage.exists(root.containerDir(c.pod(), c.name())) ? LayerImage.serial(c.serial()) : "";
        return RemoveContainerRequest.newBuilder().setId(c.name()).setForce(force).setSerial(c.serial())
                .setLayerSerial(layer).addAllShareTags(c.shareTags()).build();
    }

    /**
     * The bundle's rootfs as the container's root share: its real path (virtiofsd serves exactly that
     * directory, nothing above it), read-only when the built spec's root is. Refused, naming the flag,
     * when virtiofsd cannot take the path (a comma would split its option list).
     */
    static HostShare rootShare(Bundle bundle, ObjectNode config) throws VmException {
        Path real;
        try {
            real = bundle.rootfs().toRealPath();
        } catch (IOException e) {
            throw new VmException("invalid --rootfs-share: " + bundle.rootfs() + ": " + e.getMessage());
        }
        if (real.toString().contains(",")) {
            throw new VmException("invalid --rootfs-share: " + real + " holds a ',', which virtiofsd cannot take");
        }
        return new HostShare(Names.random("fs"), real.toString(), HostShare.ROOT, !SpecBuilder.writable(config));
    }

    /** A create whose outcome in the guest is unknown: its state stays, for ls and rm -f. */
    private static final class Kept extends RuntimeException {
        final VmException error;

        Kept(VmException error) {
            super(error.getMessage(), null, false, false);
            this.error = error;
        }
    }

    /**
     * After an AddContainer that failed or timed out in a pod that runs on: removes the container in
     * the guest, where it may exist or still be in the making (the monitor holds the removal until
     * that create ends). False when that could not be done (the guest does not answer either).
     */
    private boolean abortInGuest(PodRecord pod, ContainerRecord record) {
        if (!pods.running(pod)) {
            return true; // the VM ended, and whatever it held with it
        }
        try (AgentClient monitor = pods.connectRunning(pod)) {
            monitor.call(MonitorMethods.REMOVE_CONTAINER, removeRequest(record, true), timeouts.create());
            return true;
        } catch (RpcException | VmException e) {
            return false;
        }
    }

    private static final class NameTaken extends RuntimeException {
        NameTaken(String message) {
            super(message);
        }
    }

    /**
     * What a failed create undoes: an anonymous pod made or taken for it goes whole (its VM ended at
     * once), while one whose own container runs on (joined with --pod) only loses this one; a named pod
     * that this call booted is put back as it was (its VM ended, its records restored), so that a
     * failed first create leaves no VM running for nothing; then the container's state goes.
     */
    private void undoCreate(PodRecord pod, String name, Pods.Before before) {
        try {
            // an anonymous pod goes with its own container; one another container joined with --pod stays
            if (pod.anonymous() && root.containers(pod.name()).stream().allMatch(c -> c.name().equals(name))) {
                pods.remove(pod.name(), true, Duration.ZERO);
                return;
            }
            if (before != null) {
                pods.undoBoot(before);
            }
            root.removeContainer(pod.name(), name);
        } catch (VmException ignored) {
            // the original failure is what the user needs to see
        }
    }

    /** Maps an agent's refusal to podman's codes: a command not found 127, not runnable 126. */
    public static VmException agentErrorFor(String what, RpcException e) {
        return agentError(what, e);
    }

    static VmException agentError(String what, RpcException e) {
        String m = e.getMessage() == null ? "" : e.getMessage();
        String lower = m.toLowerCase(Locale.ROOT);
        int code = VmException.OWN_ERROR;
        if (lower.contains("no such file") || lower.contains("not found in $path") || lower.contains("executable file not found")) {
            code = VmException.NOT_FOUND;
        } else if (lower.contains("permission denied") || lower.contains("exec format")) {
            code = VmException.CANNOT_RUN;
        }
        return new VmException(code, what + ": " + m, e);
    }

    /**
     * Starts a created container; one of a stopped pod boots the pod (its other containers stay
     * stopped). A stopped container of a running pod is made again in the guest first, from its built
     * spec and on the same disks (still plugged), so it starts from what it wrote: its writable layer
     * is kept, as a stopped container's root is kept by podman's start.
     */
    public void start(String name, boolean stdinAttached) throws VmException {
        start(name, stdinAttached, false);
    }

    /**
     * {@link #start}, for a container this caller has just created (run): the guest is not asked
     * whether it stopped, which only a container started before can have.
     */
    public void startCreated(String name, boolean stdinAttached) throws VmException {
        start(name, stdinAttached, true);
    }

    private void start(String name, boolean stdinAttached, boolean justCreated) throws VmException {
        ContainerRecord c = require(name);
        try (AgentClient monitor = pods.start(c.pod())) {
            if (!justCreated && stopped(monitor, name)) {
                createAgain(monitor, c);
            }
            // the monitor records it running, and stopped when it ends (its ContainerStates)
            monitor.call(MonitorMethods.START_CONTAINER, StartContainerRequest.newBuilder().setId(name).build(), Duration.ofSeconds(60));
            if (!stdinAttached) {
                closeStdinUnlessTerminal(root, monitor, c, timeouts.query());
            }
        } catch (RpcException e) {
            throw agentError("start " + name, e);
        }
    }

    private boolean stopped(AgentClient monitor, String name) throws RpcException {
        return monitor.call(AgentMethods.Containers.INSPECT, InspectContainerRequest.newBuilder().setId(name).build(),
                timeouts.query()).getContainer().getState() == ContainerState.CONTAINER_STATE_STOPPED;
    }

    /**
     * The guest's Remove and Create of a stopped container, its disks left plugged (the agent's own
     * calls, not the monitor's, which would unplug them): the process, cgroup and mounts are new, the
     * image and the layer the same.
     */
    private void createAgain(AgentClient monitor, ContainerRecord c) throws RpcException, VmException {
        Path dir = root.containerDir(c.pod(), c.name());
        AddContainerRequest add;
        try {
            add = addRequest(dir, c, Files.readAllBytes(dir.resolve("config.json")));
        } catch (IOException e) {
            throw new VmException("container " + c.name() + ": cannot read its config.json: " + e.getMessage(), e);
        }
        monitor.call(AgentMethods.Containers.REMOVE, io.jrunc.agent.api.pb.v1.RemoveContainerRequest.newBuilder()
                .setId(c.name()).build(), timeouts.create());
        int pid = monitor.call(AgentMethods.Containers.CREATE, io.jrunc.vm.monitor.PodMonitor.guestCreate(add), timeouts.create()).getPid();
        root.write(c.created(pid));
    }

    /**
     * A process no caller writes to reads end of file at once, as podman's containers without -i read
     * /dev/null: the guest gives every process a stdin pipe, and a `cat` left holding an open one would
     * never end. A terminal's input stays open (podman's -t without -i): closing it would send the
     * terminal's end-of-file character instead.
     */
    static void closeStdinUnlessTerminal(StateRoot root, AgentClient monitor, ContainerRecord c, Duration timeout)
            throws VmException {
        if (terminal(root, c)) {
            return;
        }
        try {
            monitor.call(AgentMethods.Processes.CLOSE_STDIN, CloseStdinRequest.newBuilder()
                    .setProcess(ProcessRef.newBuilder().setContainerId(c.name())).build(), timeout);
        } catch (RpcException e) {
            if (e.code() != Code.NOT_FOUND && e.code() != Code.FAILED_PRECONDITION) {
                throw agentError("start " + c.name(), e);
            }
            // a process that already ended
        }
    }

    /** Whether the container's process has a terminal (its built spec's process.terminal). */
    static boolean terminal(StateRoot root, ContainerRecord c) throws VmException {
        Path config = root.containerDir(c.pod(), c.name()).resolve("config.json");
        try {
            return JsonNodes.read(Files.readAllBytes(config)).path("process").path("terminal").asBoolean(false);
        } catch (IOException e) {
            throw new VmException("container " + c.name() + ": cannot read " + config + ": " + e.getMessage(), e);
        }
    }

    /**
     * SIGTERM, the grace period, SIGKILL. A created container's process only waits to be started (as
     * PID 1 of its namespace it ignores SIGTERM), so it gets SIGKILL at once, as runc's delete does.
     */
    public int stop(String name, Duration grace) throws VmException {
        ContainerRecord c = require(name);
        PodRecord pod = pods.require(c.pod());
        if (!pods.running(pod)) {
            root.write(c.withState("stopped", c.exitCode()));
            return c.exitCode();
        }
        try (AgentClient monitor = pods.connectRunning(pod)) {
            Duration wait = created(monitor, name) ? Duration.ZERO : grace;
            int code = monitor.call(AgentMethods.Containers.STOP, StopContainerRequest.newBuilder().setId(name)
                    .setGraceNanos(wait.toNanos()).build(), wait.plusSeconds(60)).getStatus().getCode();
            root.write(c.withState("stopped", code));
            return code;
        } catch (RpcException e) {
            throw agentError("stop " + name, e);
        }
    }

    public void kill(String name, int signal) throws VmException {
        ContainerRecord c = require(name);
        try (AgentClient monitor = pods.connectRunning(pods.require(c.pod()))) {
            monitor.call(AgentMethods.Processes.SIGNAL, SignalRequest.newBuilder()
                    .setProcess(ProcessRef.newBuilder().setContainerId(name)).setSignal(signal).build(), Duration.ofSeconds(30));
        } catch (RpcException e) {
            throw agentError("kill " + name, e);
        }
    }

    /**
     * Freezes every process of a running container (the guest's cgroup freezer: podman's pause), or
     * thaws a paused one ({@code freeze} false: unpause). The agent's refusals (a stopped container,
     * one not paused) are the errors.
     */
    public void pause(String name, boolean freeze) throws VmException {
        ContainerRecord c = require(name);
        try (AgentClient monitor = pods.connectRunning(pods.require(c.pod()))) {
            if (freeze) {
                monitor.call(AgentMethods.Containers.PAUSE, io.jrunc.agent.api.pb.v1.PauseContainerRequest.newBuilder()
                        .setId(name).build(), Duration.ofSeconds(30));
            } else {
                monitor.call(AgentMethods.Containers.RESUME, io.jrunc.agent.api.pb.v1.ResumeContainerRequest.newBuilder()
                        .setId(name).build(), Duration.ofSeconds(30));
            }
        } catch (RpcException e) {
            throw agentError((freeze ? "pause " : "unpause ") + name, e);
        }
    }

    /**
     * Removes the container (its disk unplugged, its state and logs gone); an anonymous pod goes with
     * it. Refused for a running container unless force; a created one is removed as a stopped one
     * is, its waiting process killed first (runc's delete). With force, an anonymous pod is ended at
     * once, whatever a killed call left it doing; and a container whose create never finished
     * ("creating") is not waited for in a pod still booting: only its creator could have added it.
     */
    @SuppressWarnings("try") // the resource is a lock held for the block
    public void remove(String name, boolean force) throws VmException {
        Optional<ContainerRecord> found = root.container(name);
        if (found.isEmpty()) {
            // a create killed while it wrote the first record left a directory no listing shows
            try (AutoCloseable ignored = root.lock()) {
                root.removeUnrecordedContainer(name);
            } catch (VmException e) {
                throw e;
            } catch (Exception e) {
                throw new VmException("cannot remove container " + name + ": " + e.getMessage(), e);
            }
        }
        ContainerRecord c = found.orElseThrow(() -> new VmException("container \"" + name + "\" does not exist"));
        PodRecord pod = pods.require(c.pod());
        if (force && pod.anonymous()) {
            pods.remove(pod.name(), true, Duration.ZERO);
            return;
        }
        if (pods.running(pod)) {
            AgentClient monitor = force && "creating".equals(c.lastState()) ? pods.serving(pod) : pods.connectRunning(pod);
            if (monitor != null) {
                try (monitor) {
                    monitor.call(MonitorMethods.REMOVE_CONTAINER, removeRequest(c, force || created(monitor, name)),
                            Duration.ofSeconds(90));
                } catch (RpcException e) {
                    if (e.code() == Code.FAILED_PRECONDITION) {
                        throw new VmException("container \"" + name + "\" is running: stop it first, or use rm -f", e);
                    }
                    throw agentError("rm " + name, e);
                }
            }
        }
        try (AutoCloseable ignored = root.lock()) {
            root.removeContainer(pod.name(), name);
        } catch (VmException e) {
            throw e;
        } catch (Exception e) {
            throw new VmException("cannot remove container " + name + ": " + e.getMessage(), e);
        }
        if (pod.anonymous()) {
            pods.remove(pod.name(), true, Duration.ZERO);
        }
    }

    /** Whether the guest has the container created, not started (absent: false; no answer: an error). */
    private boolean created(AgentClient monitor, String name) throws RpcException {
        try {
            return monitor.call(AgentMethods.Containers.INSPECT, InspectContainerRequest.newBuilder().setId(name).build(),
                    timeouts.query()).getContainer().getState() == ContainerState.CONTAINER_STATE_CREATED;
        } catch (RpcException e) {
            if (e.code() == Code.NOT_FOUND) {
                return false;
            }
            throw e;
        }
    }

    /**
     * One container's view: its record, which the pod's monitor keeps current while the pod runs
     * (ContainerStates), so no call to the guest is made; a stopped pod's containers are stopped.
     */
    public ObjectNode inspect(ContainerRecord c) throws VmException {
        PodRecord pod = pods.require(c.pod());
        boolean running = pods.running(pod);
        if (running && startMonitorIfGone(pod)) {
            c = root.container(c.pod(), c.name()).orElse(c);
        }
        return view(c, running);
    }

    /** Every container's view, as {@link #inspect} makes it, in the order of {@link StateRoot#containers()}. */
    public List<ObjectNode> list() throws VmException {
        List<ObjectNode> out = new ArrayList<>();
        for (PodRecord pod : root.pods()) {
            List<ContainerRecord> recorded = root.containers(pod.name());
            if (recorded.isEmpty()) {
                continue;
            }
            boolean running = pods.running(pod);
            if (running && startMonitorIfGone(pod)) {
                recorded = root.containers(pod.name());
            }
            for (ContainerRecord c : recorded) {
                out.add(view(c, running));
            }
        }
        return out;
    }

    /**
     * For a running pod: starts a monitor when none lives (a connection starts it), which brings the
     * records up to date from the guest before it serves; whether it did, so that the caller reads again.
     */
    private boolean startMonitorIfGone(PodRecord pod) throws VmException {
        if (MonitorLink.monitorAlive(root, pod.name())) {
            return false;
        }
        pods.connectRunning(pod).close();
        return true;
    }

    /** The view of {@code c} as recorded, its pod running or not. */
    private ObjectNode view(ContainerRecord c, boolean podRunning) throws VmException {
        ObjectNode out = io.jrunc.vm.state.RecordTrees.of(c);
        out.remove("lastState");
        if (podRunning) {
            out.put("state", c.lastState());
        } else {
            out.put("state", "creating".equals(c.lastState()) ? "creating" : "stopped");
            out.remove("pid");
        }
        out.put("logs", root.containerDir(c.pod(), c.name()).toString());
        return out;
    }

    public Path logFile(ContainerRecord c, String stream) throws VmException {
        return root.containerDir(c.pod(), c.name()).resolve(stream + ".log");
    }

    public ContainerStatsResponse stats(String name) throws VmException {
        ContainerRecord c = require(name);
        try (AgentClient monitor = pods.connectRunning(pods.require(c.pod()))) {
            return monitor.call(AgentMethods.Containers.STATS, ContainerStatsRequest.newBuilder().setId(name).build(), timeouts.query());
        } catch (RpcException e) {
            throw agentError("stats " + name, e);
        }
    }

    /** Waits for the container's process; its exit code (128+N for signal N). */
    public int await(String name) throws VmException {
        ContainerRecord c = require(name);
        try (AgentClient monitor = pods.connectRunning(pods.require(c.pod()))) {
            int code = monitor.call(AgentMethods.Processes.WAIT, WaitRequest.newBuilder()
                    .setProcess(ProcessRef.newBuilder().setContainerId(name)).build(), Duration.ofDays(3650)).getStatus().getCode();
            root.write(c.withState("stopped", code));
            return code;
        } catch (RpcException e) {
            throw agentError("wait " + name, e);
        }
    }

    public Pods pods() {
        return pods;
    }
}
