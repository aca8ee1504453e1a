package io.jrunc.vm.monitor;

import com.google.protobuf.ByteString;
import com.google.protobuf.Message;
import io.jrunc.agent.api.AgentClient;
import io.jrunc.agent.api.AgentMethods;
import io.jrunc.agent.api.pb.v1.AddSwapRequest;
import io.jrunc.agent.api.pb.v1.AddVolumeRequest;
import io.jrunc.agent.api.pb.v1.ConfigurePodRequest;
import io.jrunc.agent.api.pb.v1.ContainerInfo;
import io.jrunc.agent.api.pb.v1.ContainerState;
import io.jrunc.agent.api.pb.v1.CreateContainerRequest;
import io.jrunc.agent.api.pb.v1.Dns;
import io.jrunc.agent.api.pb.v1.HostEntry;
import io.jrunc.agent.api.pb.v1.ListContainersRequest;
import io.jrunc.agent.api.pb.v1.RemoveContainerRequest;
import io.jrunc.agent.api.pb.v1.RootFilesystem;
import io.jrunc.agent.api.pb.v1.ShutdownRequest;
import io.jrunc.agent.api.pb.v1.StartContainerRequest;
import io.jrunc.agent.api.pb.v1.Sysctl;
import io.jrunc.bindings.ErrnoException;
import io.jrunc.ttrpc.CallContext;
import io.jrunc.ttrpc.ClientOptions;
import io.jrunc.ttrpc.Code;
import io.jrunc.ttrpc.Dispatcher;
import io.jrunc.ttrpc.Method;
import io.jrunc.ttrpc.RpcException;
import io.jrunc.ttrpc.ServerOptions;
import io.jrunc.ttrpc.TtrpcServer;
import io.jrunc.vm.PodVolumes;
import io.jrunc.vm.VmException;
import io.jrunc.vm.monitor.pb.AddContainerRequest;
import io.jrunc.vm.monitor.pb.AddContainerResponse;
import io.jrunc.vm.monitor.pb.AwaitOutputResponse;
import io.jrunc.vm.monitor.pb.RemoveContainerResponse;
import io.jrunc.vm.monitor.pb.Share;
import io.jrunc.vm.monitor.pb.ShutdownResponse;
import io.jrunc.vm.monitor.pb.StartContainerResponse;
import io.jrunc.vm.monitor.pb.StatusResponse;
import io.jrunc.vm.qemu.Kvm;
import io.jrunc.vm.qemu.Liveness;
import io.jrunc.vm.qemu.QemuCommand;
import io.jrunc.vm.qemu.SwapDisk;
import io.jrunc.vm.network.PodNetworks;
import io.jrunc.vm.qemu.VmImage;
import io.jrunc.vm.spec.ShareMounts;
import io.jrunc.vm.state.PodRecord;
import io.jrunc.vm.state.StateRoot;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The pod monitor (`jrunc-vm monitor POD`): one process per running pod, what a containerd shim is to
 * Kata. It owns qemu, the QMP socket and the agent's channel (qemu's chardev takes one client at a
 * time, and a client killed mid-frame would desynchronise the stream: so exactly one long-lived process
 * holds it), copies containers' output to log files, and serves any number of CLI clients on the pod's
 * monitor.sock: ttRPC with the jrunc.monitor.v1 service (monitor.proto) plus every agent method passed
 * through unchanged.
 *
 * <p>It holds monitor.lock for its whole life; a CLI call that finds the lock free and qemu alive knows
 * the monitor died and starts a new one, which takes over qemu (QMP accepts the new client once the
 * old one is gone) and reconnects to the agent (the protocol resynchronises, docs/protocol.md). The
 * monitor ends when qemu does.
 */
public final class PodMonitor implements AutoCloseable {
    /**
     * The logger, made on first use: System.getLogger sets up java.util.logging (a service lookup that
     * opens every jar of the class path, its configuration read), and the CLI calls this class's static
     * helpers (socket, runningQemu) in every call that looks at a pod, logging nothing.
     */
    private static final class Log {
        static final System.Logger LOG = System.getLogger(PodMonitor.class.getName());
    }

    private final StateRoot root;
    private final PodRecord pod;
    /** The VM was restored from the pod template: it takes no shared directories. */
    private final boolean restored;
    private final PodVm vm;
    private final AgentClient agent;
    private final OutputLogs logs;
    private final TtrpcServer server;
    private final ServerSocketChannel listener;
    private final Path socket;
    /** One AddContainer or RemoveContainer at a time per container: a removal waits for a create. */
    private final ContainerLocks containerLocks = new ContainerLocks();
    /** Each container's state, kept in its container.json. */
    private final ContainerStates states;
    /** Shutdown calls not yet answered: the monitor waits for them before it closes the socket. */
    private final java.util.concurrent.atomic.AtomicInteger shutdowns = new java.util.concurrent.atomic.AtomicInteger();
    /** What the pod's set-up calls took at {@link #start}, for the ready line: "Configure 412 ms, AddSwap 95 ms". */
    private final String setupTimes;

    private PodMonitor(StateRoot root, PodRecord pod, PodVm vm, AgentClient agent, List<Method<?, ?>> passed,
            String setupTimes) throws IOException, VmException {
        this.root = root;
        this.setupTimes = setupTimes;
        this.pod = pod;
        this.restored = pod.vm().restored();
        this.vm = vm;
        this.agent = agent;
        this.logs = new OutputLogs(c -> root.containerDir(pod.name(), c));
        this.states = new ContainerStates(root, pod.name(), agent, containerLocks);
        this.server = new TtrpcServer(dispatcher(passed), ServerOptions.DEFAULTS);
        this.socket = socket(root, pod.name());
        Files.deleteIfExists(socket);
        this.listener = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        listener.bind(UnixDomainSocketAddress.of(socket));
    }

    public static Path socket(StateRoot root, String pod) throws VmException {
        return root.podDir(pod).resolve("monitor.sock");
    }

    /**
     * Connects to the agent (waiting for it to boot, up to the options' sync timeout), configures the pod
     * (idempotent, so a reconnecting monitor repeats it), resumes log copying for running containers,
     * and starts serving CLI clients on monitor.sock.
     */
    public static PodMonitor start(StateRoot root, PodRecord pod, PodVm vm, ClientOptions agentOptions)
            throws IOException, RpcException, VmException {
        // made before the agent answers: the first protobuf message of this JVM starts protobuf's
        // runtime (its logger, its version check), work better done while the guest boots than after
        // with fresh entropy for the guest's kernel (a VM restored from a template has its generator)
        ConfigurePodRequest.Builder configure = configure(pod).toBuilder().setEntropy(ByteString.copyFrom(entropy()));
        List<Method<?, ?>> passed = passedThrough();
        AgentClient agent;
        try {
            agent = AgentClient.connect(vm.connectAgent(), agentOptions);
        } catch (io.jrunc.agent.api.IncompatibleAgentException e) {
            throw new VmException(e.getMessage());
        }
        try {
            // the set-up calls are timed from the request's sending to the reply
            long t0 = System.nanoTime();
            // the host's clock as sent: the guest's is set to it (a restored VM's is the template's)
            agent.call(AgentMethods.Pod.CONFIGURE, configure.setHostTimeNanos(nowNanos()).build());
            long t1 = System.nanoTime();
            String times = "Configure " + (t1 - t0) / 1_000_000 + " ms";
            if (pod.config().swapBytes() > 0) {
                // before any container is created or started; a reconnecting monitor's repeat is
                // answered with the area already enabled (same serial)
                agent.call(AgentMethods.Pod.ADD_SWAP, AddSwapRequest.newBuilder().setSerial(SwapDisk.SERIAL).build());
                times += ", AddSwap " + (System.nanoTime() - t1) / 1_000_000 + " ms";
            }
            // mounted before any container is created, whose spec binds them; a repeat is answered as done
            for (PodVolumes.Disk v : PodVolumes.list(root.podDir(pod.name()))) {
                agent.call(AgentMethods.Pod.ADD_VOLUME, AddVolumeRequest.newBuilder().setName(v.name()).setSerial(v.serial()).build());
            }
            PodMonitor monitor = new PodMonitor(root, pod, vm, agent, passed, times);
            for (ContainerInfo c : agent.call(AgentMethods.Containers.LIST, ListContainersRequest.getDefaultInstance()).getContainersList()) {
                // every started container: a running one's output goes on, a stopped one's rest is still buffered
                if (c.getState() == ContainerState.CONTAINER_STATE_RUNNING
                        || (c.getState() == ContainerState.CONTAINER_STATE_STOPPED && c.getStartedAtNanos() != 0)) {
                    monitor.logs.follow(agent, c.getId());
                }
                // what changed while no monitor ran (this one takes over a running VM)
                monitor.states.reconcile(c);
            }
            Thread.ofVirtual().name("monitor-accept").start(() -> {
                try {
                    monitor.server.serveConnections(monitor.listener);
                } catch (IOException e) {
                    Log.LOG.log(System.Logger.Level.ERROR, "monitor socket failed: " + e.getMessage());
                }
            });
            return monitor;
        } catch (IOException | RpcException | VmException | RuntimeException e) {
            agent.close();
            throw e;
        }
    }

    /** Bytes for the guest kernel's random pool: as many as its generator's key. */
    static byte[] entropy() {
        byte[] bytes = new byte[32];
        HostRandom.RANDOM.nextBytes(bytes);
        return bytes;
    }

    /** The monitor's one SecureRandom, made at its first use ({@link #setUpAhead}). */
    private static final class HostRandom {
        static final SecureRandom RANDOM = new SecureRandom();
    }

    /**
     * The cold parts of {@link #start}'s set-up, begun while qemu starts: the SecureRandom (the
     * security providers listed, their properties read) and protobuf's runtime (its logger, its
     * version check), some tens of milliseconds of a new JVM. A VM restored from the template answers
     * as soon as its state is loaded, so there they would follow the load rather than overlap it. The
     * Configure itself is built later, from the record as the VM's start left it.
     */
    private static void setUpAhead() {
        Thread.ofPlatform().daemon().name("set-up-ahead").start(() -> {
            HostRandom.RANDOM.nextInt();
            ConfigurePodRequest.getDefaultInstance();
        });
    }

    /** The wall clock in nanoseconds since the epoch. */
    static long nowNanos() {
        Instant now = Instant.now();
        return now.getEpochSecond() * 1_000_000_000L + now.getNano();
    }

    public static ConfigurePodRequest configure(PodRecord pod) {
        PodRecord.Config c = pod.config();
        PodRecord.Network net = c.network();
        String hostname = c.hostname() == null ? pod.name() : c.hostname();
        ConfigurePodRequest.Builder b = ConfigurePodRequest.newBuilder()
                .setHostname(hostname)
                .addAllSysctls(c.sysctls().entrySet().stream()
                        .map(e -> Sysctl.newBuilder().setName(e.getKey()).setValue(e.getValue()).build()).toList())
                .setContainerCpus(Math.max(1, c.cpus()))
                .setNetwork(PodNetworks.guestConfig(net));
        // the pod's own resolver, or the network's when it names none (user-mode: slirp's forwarder)
        List<String> nameservers = c.dns().isEmpty() ? PodNetworks.defaultNameservers(net) : c.dns();
        if (!nameservers.isEmpty() || !net.dnsSearch().isEmpty() || !net.dnsOptions().isEmpty()) {
            b.setDns(Dns.newBuilder().addAllNameservers(nameservers).addAllSearches(net.dnsSearch()).addAllOptions(net.dnsOptions()));
        }
        // the pod's own name at its own address, as podman's hosts file has it
        String own = PodNetworks.ownAddress(net);
        if (own != null) {
            HostEntry.Builder self = HostEntry.newBuilder().setIp(own).addNames(hostname);
            if (!hostname.equals(pod.name())) {
                self.addNames(pod.name());
            }
            b.addHosts(self);
        }
        for (String entry : c.addHosts()) {
            int colon = entry.indexOf(':');
            b.addHosts(HostEntry.newBuilder().setIp(entry.substring(colon + 1)).addNames(entry.substring(0, colon)));
        }
        return b.build();
    }

    /**
     * The agent's methods the monitor passes on unchanged: all but Version, which it answers itself,
     * and the calls whose outcome it records (Start, Pause, Resume). Listed in {@link #start} before the
     * agent answers, so that the API's message classes (some 200, from its jar: no AOT cache holds
     * them all) load while the guest boots, not between Configure's reply and the socket's serving.
     */
    private static List<Method<?, ?>> passedThrough() {
        java.util.Set<Method<?, ?>> own = java.util.Set.of(AgentMethods.VERSION, AgentMethods.Containers.START,
                AgentMethods.Containers.PAUSE, AgentMethods.Containers.RESUME);
        return MonitorMethods.agentMethods().stream().filter(m -> !own.contains(m)).toList();
    }

    private Dispatcher dispatcher(List<Method<?, ?>> passed) {
        Dispatcher d = new Dispatcher();
        for (Method<?, ?> m : passed) {
            passThrough(d, m);
        }
        // the calls that change a container's state are passed on and recorded (ContainerStates)
        d.register(AgentMethods.Containers.START, (ctx, q) -> {
            var r = agent.call(AgentMethods.Containers.START, q, deadline(ctx));
            states.started(q.getId());
            return r;
        });
        d.register(AgentMethods.Containers.PAUSE, (ctx, q) -> {
            var r = agent.call(AgentMethods.Containers.PAUSE, q, deadline(ctx));
            states.frozen(q.getId(), true);
            return r;
        });
        d.register(AgentMethods.Containers.RESUME, (ctx, q) -> {
            var r = agent.call(AgentMethods.Containers.RESUME, q, deadline(ctx));
            states.frozen(q.getId(), false);
            return r;
        });
        // every client's connect asks the version first: the monitor answers with what its own connect
        // got from this agent (the agent's version does not change while it runs), so a CLI call does
        // not wait for a round trip through the guest before its first real call
        d.register(AgentMethods.VERSION, (ctx, q) -> agent.agentVersion());
        d.register(MonitorMethods.STATUS, (ctx, q) -> {
            String status;
            try {
                status = vm.status();
            } catch (IOException e) {
                throw new RpcException(Code.UNAVAILABLE, "qemu does not answer on QMP: " + e.getMessage());
            }
            return StatusResponse.newBuilder().setPod(pod.name()).setMonitorPid(ProcessHandle.current().pid())
                    .setQemuPid(vm.pid()).setVmStatus(status)
                    .setAgent(agent.agentVersion().getAgent()).setAgentMajor(agent.agentVersion().getMajor())
                    .setAgentMinor(agent.agentVersion().getMinor())
                    .setBootedDigest(pod.vm().bootedDigest() == null ? "" : pod.vm().bootedDigest()).build();
        });
        d.register(MonitorMethods.ADD_CONTAINER, (ctx, q) -> {
            try (ContainerLocks.Held held = containerLocks.hold(q.getId())) {
                return addContainer(ctx, q);
            }
        });
        d.register(MonitorMethods.START_CONTAINER, (ctx, q) -> {
            agent.call(AgentMethods.Containers.START, StartContainerRequest.newBuilder().setId(q.getId()).build());
            logs.follow(agent, q.getId());
            states.started(q.getId());
            return StartContainerResponse.getDefaultInstance();
        });
        d.register(MonitorMethods.AWAIT_OUTPUT, (ctx, q) -> AwaitOutputResponse.newBuilder()
                .setEnded(logs.awaitEnded(q.getId(), Duration.ofNanos(Math.max(0, q.getTimeoutNanos())))).build());
        d.register(MonitorMethods.REMOVE_CONTAINER, (ctx, q) -> {
            try (ContainerLocks.Held held = containerLocks.hold(q.getId())) {
                removeContainer(q.getId(), q.getForce(), q.getSerial(), q.getLayerSerial(), q.getShareTagsList());
            }
            return RemoveContainerResponse.getDefaultInstance();
        });
        d.register(MonitorMethods.SHUTDOWN, (ctx, q) -> {
            shutdowns.incrementAndGet();
            try {
                return shutdown(q);
            } finally {
                shutdowns.decrementAndGet();
            }
        });
        return d;
    }

    /**
     * Hot-plugs the image, then the agent's Create; on failure the disk is unplugged again. A create
     * that ends after its caller's deadline is undone in the guest (its caller took it as failed and
     * removes its state; a container left in the guest would be one the host does not know).
     */
    private AddContainerResponse addContainer(CallContext ctx, AddContainerRequest q) throws RpcException {
        long began = System.nanoTime();
        List<String> tags = q.getSharesList().stream().map(Share::getTag).toList();
        if (restored && (q.getSharesCount() > 0 || !q.getRootShare().isEmpty())) {
            throw new RpcException(Code.FAILED_PRECONDITION, "pod " + pod.name() + " was restored from the pod template:"
                    + " its memory cannot be shared with virtiofsd, so " + q.getId() + " cannot have shared directories there");
        }
        // the shares before the disk: the guest probes them while the agent waits for the disk
        for (int i = 0; i < q.getSharesCount(); i++) {
            Share share = q.getShares(i);
            try {
                vm.attachShare(share.getTag(), Path.of(share.getHostPath()));
            } catch (IOException e) {
                detachSharesQuietly(tags.subList(0, i + 1));
                throw new RpcException(Code.INTERNAL, "cannot share " + share.getHostPath() + " with " + q.getId() + ": " + e.getMessage());
            }
        }
        boolean disk = q.getRootShare().isEmpty(); // a root shared by virtio-fs has no image
        if (disk) {
            try {
                vm.attachDisk(q.getSerial(), Path.of(q.getImage()));
            } catch (IOException e) {
                detachSharesQuietly(tags);
                throw new RpcException(Code.INTERNAL, "cannot attach the image of " + q.getId() + ": " + e.getMessage());
            }
        }
        boolean layer = !q.getLayerSerial().isEmpty();
        if (layer) {
            try {
                vm.attachWritableDisk(q.getLayerSerial(), Path.of(q.getLayerImage()));
            } catch (IOException e) {
                if (disk) {
                    detachQuietly(List.of(q.getSerial()));
                }
                detachSharesQuietly(tags);
                throw new RpcException(Code.INTERNAL, "cannot attach the writable layer of " + q.getId() + ": " + e.getMessage());
            }
        }
        long attached = System.nanoTime();
        int pid;
        try {
            pid = agent.call(AgentMethods.Containers.CREATE, guestCreate(q)).getPid();
        } catch (RpcException e) {
            List<String> disks = new ArrayList<>(2);
            if (disk) {
                disks.add(q.getSerial());
            }
            if (layer) {
                disks.add(q.getLayerSerial());
            }
            detachQuietly(disks);
            detachSharesQuietly(tags);
            throw e;
        }
        if (ctx.remaining().map(Duration::isZero).orElse(false)) {
            System.err.println("monitor: container " + q.getId() + " was created after its caller's deadline: removing it");
            removeContainer(q.getId(), true, q.getSerial(), q.getLayerSerial(), tags);
            throw new RpcException(Code.DEADLINE_EXCEEDED, "container " + q.getId()
                    + " was created after the caller's deadline, and removed again");
        }
        long created = System.nanoTime();
        System.err.printf("monitor: container %s added in %d ms (devices attached %d ms, the agent's Create %d ms)%n",
                q.getId(), (created - began) / 1_000_000, (attached - began) / 1_000_000, (created - attached) / 1_000_000);
        return AddContainerResponse.newBuilder().setPid(pid).build();
    }

    /**
     * The agent's Create of what AddContainer attaches: the image's disk (or the root's virtio-fs tag
     * for a root shared from a host directory), and the layer's when given.
     */
    public static CreateContainerRequest guestCreate(AddContainerRequest q) {
        RootFilesystem root = q.getRootShare().isEmpty()
                ? RootFilesystem.newBuilder().setSerial(q.getSerial()).setFsType("ext4").build()
                : RootFilesystem.newBuilder().setSerial(q.getRootShare()).setFsType(ShareMounts.TYPE).build();
        CreateContainerRequest.Builder create = CreateContainerRequest.newBuilder()
                .setId(q.getId()).setOciConfig(q.getOciConfig()).setRootfs(root);
        if (!q.getLayerSerial().isEmpty()) {
            create.setLayer(RootFilesystem.newBuilder().setSerial(q.getLayerSerial()).setFsType("ext4"));
        }
        return create.build();
    }

    /**
     * The agent's Remove (a container it does not have is fine), then the unplug of the disks (the
     * image's and the layer's, together), then the shares'.
     */
    private void removeContainer(String id, boolean force, String serial, String layerSerial, List<String> shareTags)
            throws RpcException {
        long began = System.nanoTime();
        states.removed(id);
        try {
            agent.call(AgentMethods.Containers.REMOVE, RemoveContainerRequest.newBuilder().setId(id).setForce(force).build());
        } catch (RpcException e) {
            if (e.code() != Code.NOT_FOUND) {
                throw e;
            }
        }
        long removed = System.nanoTime();
        List<String> disks = new ArrayList<>(2);
        if (!serial.isEmpty()) {
            disks.add(serial);
        }
        if (!layerSerial.isEmpty()) {
            disks.add(layerSerial);
        }
        if (!disks.isEmpty()) {
            try {
                vm.detachDisks(disks);
            } catch (IOException e) {
                throw new RpcException(Code.INTERNAL, "container " + id + " removed, but its disk"
                        + (disks.size() > 1 ? "s " + String.join(" and ", disks) + " were" : " " + disks.getFirst() + " was")
                        + " not unplugged: " + e.getMessage());
            }
        }
        for (String tag : shareTags) {
            try {
                vm.detachShare(tag);
            } catch (IOException e) {
                throw new RpcException(Code.INTERNAL, "container " + id + " removed, but its shared directory "
                        + tag + " was not unplugged: " + e.getMessage());
            }
        }
        long end = System.nanoTime();
        System.err.printf("monitor: container %s removed in %d ms (the agent's Remove %d ms, devices detached %d ms)%n",
                id, (end - began) / 1_000_000, (removed - began) / 1_000_000, (end - removed) / 1_000_000);
    }

    private ShutdownResponse shutdown(io.jrunc.vm.monitor.pb.ShutdownRequest q) throws InterruptedException {
        Duration timeout = Duration.ofNanos(q.getTimeoutNanos() > 0 ? q.getTimeoutNanos() : Duration.ofSeconds(60).toNanos());
        try {
            agent.call(AgentMethods.Pod.SHUTDOWN, ShutdownRequest.newBuilder().setGraceNanos(q.getGraceNanos()).build(), timeout);
        } catch (RpcException e) {
            Log.LOG.log(System.Logger.Level.WARNING, "the agent's Shutdown failed (" + e.getMessage() + "): waiting for qemu, then QMP quit");
        }
        Integer exit = vm.awaitExit(timeout);
        if (exit == null) {
            System.err.println("monitor: qemu did not power off within " + timeout.toSeconds() + " s: QMP quit");
            exit = stopVm(vm, timeout.compareTo(QUIT_GRACE) < 0 ? timeout : QUIT_GRACE);
        }
        return ShutdownResponse.newBuilder().setQemuExit(exit == null ? -1 : exit).build();
    }

    /** How long qemu gets to exit after QMP quit before it is killed. */
    static final Duration QUIT_GRACE = Duration.ofSeconds(10);

    /**
     * Ends qemu: QMP quit, then SIGKILL if it has not exited within {@code grace} (hung, stopped, or
     * deaf on QMP). Returns its exit status (-1 when it is not this monitor's child), or null if it
     * outlived even the SIGKILL's 10 s.
     */
    static Integer stopVm(PodVm vm, Duration grace) throws InterruptedException {
        // on a thread of its own: a qemu that reads no QMP would hold the quit for QMP's own timeout
        Thread.ofVirtual().name("qmp-quit").start(() -> {
            try {
                vm.quit();
            } catch (IOException e) {
                Log.LOG.log(System.Logger.Level.WARNING, "QMP quit: " + e.getMessage());
            }
        });
        Integer exit = vm.awaitExit(grace);
        if (exit == null) {
            System.err.println("monitor: qemu " + vm.pid() + " still runs " + grace.toSeconds() + " s after QMP quit: SIGKILL");
            vm.kill();
            exit = vm.awaitExit(Duration.ofSeconds(10));
            System.err.println("monitor: qemu " + (exit == null ? "survived SIGKILL for 10 s" : "killed, exit " + exit));
        }
        return exit;
    }

    /**
     * Forwards a call to the agent with its caller's deadline: a call the agent never answers (a guest
     * that hangs) ends for the monitor when it ends for its caller, rather than holding a thread for ever.
     */
    private <Q extends Message, R extends Message> void passThrough(Dispatcher d, Method<Q, R> m) {
        d.register(m, (ctx, q) -> agent.call(m, q, deadline(ctx)));
    }

    /** The caller's time left as the agent call's timeout: none when it set no deadline, 1 ns when it has passed. */
    private static Duration deadline(CallContext ctx) {
        return ctx.remaining().map(left -> left.isZero() ? Duration.ofNanos(1) : left).orElse(Duration.ZERO);
    }

    private void detachQuietly(List<String> serials) {
        if (serials.isEmpty()) {
            return;
        }
        try {
            vm.detachDisks(serials);
        } catch (IOException e) {
            Log.LOG.log(System.Logger.Level.WARNING, "disks " + String.join(" ", serials) + " not unplugged: " + e.getMessage());
        }
    }

    private void detachSharesQuietly(List<String> tags) {
        for (String tag : tags) {
            try {
                vm.detachShare(tag);
            } catch (IOException e) {
                Log.LOG.log(System.Logger.Level.WARNING, "shared directory " + tag + " not unplugged: " + e.getMessage());
            }
        }
    }

    /** Blocks until qemu exits; its exit code (-1 when it is not this process's child). */
    public int awaitVm() throws InterruptedException {
        Integer exit;
        do {
            exit = vm.awaitExit(Duration.ofHours(1));
        } while (exit == null);
        // a Shutdown call is answered before the socket closes (its caller waits for that answer)
        for (int i = 0; i < 50 && shutdowns.get() > 0; i++) {
            Thread.sleep(100);
        }
        Thread.sleep(200);
        return exit;
    }

    @Override
    public void close() {
        server.close();
        try {
            listener.close();
            Files.deleteIfExists(socket);
        } catch (IOException ignored) {
            // the directory may already be gone (pod rm)
        }
        agent.close();
        vm.close();
    }

    // ------------------------------------------------------------------------------------------------
    // The monitor process.

    /** How long the monitor waits for a booting VM's agent (boot under emulation took 6-35 s). */
    public static final Duration BOOT_TIMEOUT = Duration.ofSeconds(180);

    /**
     * `jrunc-vm monitor POD`: the process the CLI starts (ProcessBuilder, through setsid(1) when there
     * is one). Returns the process's exit status.
     *
     * <p>A session of its own ({@link Session}): the monitor must outlive the CLI call's session and
     * terminal (a shell's SIGHUP on logout, a ^C to the CLI's process group). ProcessBuilder's child is
     * no process group leader, so setsid succeeds; if it ever fails, the monitor stops before it starts
     * qemu and says why in monitor.log, whose last line the CLI reports.
     */
    public static int runProcess(StateRoot root, String podName) {
        try {
            Session.lead();
        } catch (ErrnoException e) {
            System.err.println("monitor: " + e.getMessage());
            return 1;
        }
        Path dir;
        try {
            dir = root.podDir(podName);
        } catch (VmException e) {
            System.err.println("monitor: " + e.getMessage());
            return 1;
        }
        try (FileChannel lockFile = FileChannel.open(dir.resolve("monitor.lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
            FileLock lock = lockFile.tryLock();
            if (lock == null) {
                System.err.println("monitor: another monitor serves pod " + podName);
                return 0;
            }
            PodRecord pod = root.pod(podName).orElseThrow(() -> new VmException("pod " + podName + " does not exist"));
            Optional<ProcessHandle> running = runningQemu(pod);
            PodVm vm;
            if (running.isPresent()) {
                System.err.println("monitor " + ProcessHandle.current().pid() + ": taking over qemu " + running.get().pid());
                vm = QemuVm.attach(running.get(), dir);
            } else {
                setUpAhead();
                PodRecord.Config config = pod.config();
                VmImage image = VmImage.locate(config.kernel() == null ? null : Path.of(config.kernel()),
                        config.initrd() == null ? null : Path.of(config.initrd()));
                Kvm.Verdict kvm = Kvm.verdict(root.path());
                System.err.println("monitor: accelerator " + kvm.accelerator() + (kvm.kvm() ? "" : " (" + kvm.reason() + ")"));
                QemuVm qemu = restoreFromTemplate(root, pod, image, kvm.kvm(), dir);
                boolean restored = qemu != null;
                if (qemu == null) {
                    var command = new java.util.ArrayList<>(QemuCommand.build(image, config.cpus(), config.memoryBytes(), dir,
                            kvm.kvm()));
                    if (config.swapBytes() > 0) {
                        // afresh at every boot: the agent formats it, and nothing in it outlives the VM
                        command.addAll(SwapDisk.qemuArgs(SwapDisk.makeFresh(dir, config.swapBytes())));
                    }
                    command.addAll(PodVolumes.qemuArgs(PodVolumes.list(dir)));
                    qemu = PodBoot.launch(root, pod, command, dir);
                }
                pod = root.pod(podName).orElse(pod); // the network's addresses as this boot found them
                long started = ProcessHandle.of(qemu.pid()).flatMap(h -> h.info().startInstant()).map(i -> i.toEpochMilli()).orElse(0L);
                pod = pod.withVm(new PodRecord.Vm(qemu.pid(), started, image.digest(), restored));
                root.write(pod);
                vm = qemu;
            }
            PodMonitor monitor;
            try {
                monitor = start(root, pod, vm, ClientOptions.DEFAULTS.withSync(BOOT_TIMEOUT, Duration.ofSeconds(3)));
            } catch (IOException | RpcException | VmException | RuntimeException e) {
                // the guest's own account (a kernel panic, an init that failed) is on its serial console
                Path console = dir.resolve("console.log");
                System.err.println("monitor: the VM's agent did not come up: " + e.getMessage() + "; stopping qemu; the console"
                        + " (" + console + ") says: " + MonitorLink.bootFailure(console));
                stopVm(vm, QUIT_GRACE);
                vm.close();
                QemuVm.removeBootFiles(dir);
                PodBoot.detachNetwork(pod);
                return 1;
            }
            System.err.println("monitor: pod " + podName + " ready (" + monitor.setupTimes + ")");
            int exit = monitor.awaitVm();
            System.err.println("monitor: qemu exited " + (exit >= 0 ? Integer.toString(exit) : "(not this monitor's child: status unknown)"));
            monitor.close();
            QemuVm.removeBootFiles(dir); // the swap area is scratch: the next boot makes it afresh
            PodBoot.detachNetwork(pod);
            return 0;
        } catch (VmException | IOException e) {
            System.err.println("monitor: " + e.getMessage());
            return 1;
        } catch (InterruptedException e) {
            return 1;
        }
    }

    /**
     * The pod's VM restored from the template when one fits it (PodTemplate), its record given the
     * template's hardware address first; null when none fits or the restore fails (the pod then boots,
     * and the monitor's log says why).
     */
    private static QemuVm restoreFromTemplate(StateRoot root, PodRecord pod, VmImage image, boolean kvm, Path dir)
            throws VmException {
        Optional<PodTemplate.Saved> saved = PodTemplate.matching(root, pod, image, kvm, dir);
        if (saved.isEmpty()) {
            return null;
        }
        long t0 = System.nanoTime();
        PodRecord restoring = PodTemplate.withTemplateMac(pod, saved.get());
        root.write(restoring);
        try {
            QemuVm qemu = PodTemplate.restore(restoring, image, kvm, dir, saved.get());
            System.err.println("monitor: restored from the template in " + (System.nanoTime() - t0) / 1_000_000 + " ms");
            return qemu;
        } catch (IOException | VmException | RuntimeException e) {
            System.err.println("monitor: not restored from the template (" + e.getMessage() + "): booting");
            root.write(pod); // its own hardware address again, which the booted guest's interface has
            return null;
        }
    }

    /** qemu as the pod's state file names it, if that process still runs (same pid and start time). */
    public static Optional<ProcessHandle> runningQemu(PodRecord pod) {
        return runningQemu(pod.vm());
    }

    /** qemu as a pod's last VM names it, if that process still runs. */
    public static Optional<ProcessHandle> runningQemu(PodRecord.Vm vm) {
        if (vm.qemuPid() <= 0) {
            return Optional.empty();
        }
        return ProcessHandle.of(vm.qemuPid()).filter(Liveness::live)
                .filter(h -> h.info().startInstant().map(i -> i.toEpochMilli() == vm.qemuStartedAt()).orElse(false));
    }
}
