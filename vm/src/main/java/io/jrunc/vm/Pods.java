package io.jrunc.vm;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.jrunc.agent.api.AgentClient;
import io.jrunc.agent.api.AgentMethods;
import io.jrunc.agent.api.pb.v1.ListContainersRequest;
import io.jrunc.agent.api.pb.v1.PodStatsRequest;
import io.jrunc.agent.api.pb.v1.PodStatsResponse;
import io.jrunc.ttrpc.RpcException;
import io.jrunc.vm.monitor.MonitorLink;
import io.jrunc.vm.monitor.MonitorMethods;
import io.jrunc.vm.monitor.PodMonitor;
import io.jrunc.vm.monitor.PodProcesses;
import io.jrunc.vm.network.PodNetworks;
import io.jrunc.vm.monitor.pb.ShutdownRequest;
import io.jrunc.vm.monitor.pb.StartContainerRequest;
import io.jrunc.vm.monitor.pb.StatusRequest;
import io.jrunc.vm.monitor.pb.StatusResponse;
import io.jrunc.vm.qemu.Kvm;
import io.jrunc.vm.qemu.QemuCommand;
import io.jrunc.vm.qemu.SwapDisk;
import io.jrunc.vm.qemu.VmImage;
import io.jrunc.vm.state.ContainerRecord;
import io.jrunc.vm.state.PodRecord;
import io.jrunc.vm.state.StateRoot;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Pods: create, start, stop, remove, inspect, list, prune. A pod is a state directory until its VM
 * starts (with `pod start` or its first container); its VM runs under its monitor; `pod stop` powers
 * the VM off and keeps the state (containers' records and logs); `pod rm` removes it all.
 */
public final class Pods {
    private static final Pattern SYSCTL = Pattern.compile("[a-zA-Z0-9_.\\-/]+=.*");
    private static final Pattern ADD_HOST = Pattern.compile("[^:\\s]+:[0-9a-fA-F.:]+");

    /**
     * What `pod create` was asked for; sizes parsed, the rest still text to validate.
     *
     * @param swapBytes the pod's swap area (0: none)
     * @param network   `--network` (null: user), `--publish`, `--dns-search`, `--dns-option`
     * @param volumes   {@code --volume NAME[:SIZE]}, the pod's named volumes
     */
    public record Spec(String name, int cpus, long memoryBytes, String hostname, List<String> dns,
                       List<String> addHosts, List<String> sysctls, Path kernel, Path initrd, long swapBytes,
                       NetworkSpec network, List<String> volumes) {
        public Spec {
            volumes = volumes == null ? List.of() : List.copyOf(volumes);
        }

        public Spec(String name, int cpus, long memoryBytes, String hostname, List<String> dns,
                    List<String> addHosts, List<String> sysctls, Path kernel, Path initrd, long swapBytes,
                    NetworkSpec network) {
            this(name, cpus, memoryBytes, hostname, dns, addHosts, sysctls, kernel, initrd, swapBytes, network, List.of());
        }
    }

    /** The network flags of `pod create` (and of `create`/`run` for an anonymous pod), still text. */
    public record NetworkSpec(String mode, List<String> publish, List<String> dnsSearch, List<String> dnsOptions) {
        public static final NetworkSpec DEFAULT = new NetworkSpec(null, List.of(), List.of(), List.of());

        public NetworkSpec {
            publish = publish == null ? List.of() : List.copyOf(publish);
            dnsSearch = dnsSearch == null ? List.of() : List.copyOf(dnsSearch);
            dnsOptions = dnsOptions == null ? List.of() : List.copyOf(dnsOptions);
        }

        public boolean isDefault() {
            return mode == null && publish.isEmpty() && dnsSearch.isEmpty() && dnsOptions.isEmpty();
        }

        /** Validated (each host port bound and released), with the interface's address chosen. */
        public PodRecord.Network resolve() throws VmException {
            return PodNetworks.make(mode, publish, dnsSearch, dnsOptions);
        }
    }

    /**
     * A pod as it was before a call that may boot it: what {@link #undoBoot} puts back when that call
     * fails (its VM ended, its state file and its other containers' records as they were).
     */
    public record Before(PodRecord pod, boolean active, List<ContainerRecord> containers) {
    }

    private final StateRoot root;
    private final MonitorLink link;

    public Pods(StateRoot root, MonitorLink link) {
        this.root = root;
        this.link = link;
    }

    public StateRoot root() {
        return root;
    }

    /** Validates everything first; writes the pod's state only when all of it is good. */
    @SuppressWarnings("try") // the resource is a lock held for the block
    public PodRecord create(Spec spec, boolean anonymous) throws VmException {
        String name = spec.name() == null ? Names.random("pod-") : Names.require(spec.name(), "pod name");
        if (spec.cpus() < 0) {
            throw new VmException("invalid --cpus " + spec.cpus() + ": must be at least 1");
        }
        if (spec.hostname() != null) {
            Names.require(spec.hostname(), "--hostname");
        }
        for (String ip : spec.dns()) {
            requireIp(ip, "--dns");
        }
        for (String h : spec.addHosts()) {
            if (!ADD_HOST.matcher(h).matches()) {
                throw new VmException("invalid --add-host \"" + h + "\": expected NAME:IP");
            }
            requireIp(h.substring(h.indexOf(':') + 1), "--add-host " + h);
        }
        Map<String, String> sysctls = new LinkedHashMap<>();
        for (String s : spec.sysctls()) {
            if (!SYSCTL.matcher(s).matches()) {
                throw new VmException("invalid --sysctl \"" + s + "\": expected KEY=VALUE");
            }
            sysctls.put(s.substring(0, s.indexOf('=')), s.substring(s.indexOf('=') + 1));
        }
        if (spec.kernel() != null || spec.initrd() != null) {
            VmImage.locate(spec.kernel(), spec.initrd());
        }
        SwapDisk.require(spec.swapBytes(), "--swap");
        List<PodVolumes.Request> volumes = PodVolumes.parse(spec.volumes());
        PodRecord.Network network = (spec.network() == null ? NetworkSpec.DEFAULT : spec.network()).resolve();
        PodRecord pod = PodRecord.created(name, anonymous, new PodRecord.Config(spec.cpus() == 0 ? 1 : spec.cpus(),
                spec.memoryBytes() == 0 ? QemuCommand.DEFAULT_POD_MEMORY : spec.memoryBytes(),
                spec.hostname() == null ? name : spec.hostname(), spec.dns(), spec.addHosts(), sysctls,
                spec.kernel() == null ? null : spec.kernel().toAbsolutePath().toString(),
                spec.initrd() == null ? null : spec.initrd().toAbsolutePath().toString(), spec.swapBytes(), network));
        try (AutoCloseable ignored = root.lock()) {
            if (root.pod(name).isPresent()) {
                throw new VmException("pod name \"" + name + "\" is already in use");
            }
            root.write(pod);
            try {
                PodVolumes.make(root.podDir(name), volumes);
            } catch (VmException | RuntimeException e) {
                StateRoot.removeTree(root.podDir(name));
                throw e;
            }
        } catch (VmException e) {
            throw e;
        } catch (Exception e) {
            throw new VmException("cannot create pod " + name + ": " + e.getMessage(), e);
        }
        return pod;
    }

    private static void requireIp(String ip, String what) throws VmException {
        if (!ip.matches("[0-9a-fA-F.:]+")) {
            throw new VmException("invalid " + what + " \"" + ip + "\": not an IP address");
        }
        try {
            InetAddress.ofLiteral(ip);
        } catch (IllegalArgumentException e) {
            throw new VmException("invalid " + what + " \"" + ip + "\": not an IP address");
        }
    }

    public PodRecord require(String name) throws VmException {
        return root.pod(name).orElseThrow(() -> new VmException("pod \"" + name + "\" does not exist"));
    }

    /** The image the pod boots: its own --kernel/--initrd, or the installed one. */
    public static VmImage image(PodRecord pod) throws VmException {
        PodRecord.Config c = pod.config();
        return VmImage.locate(c.kernel() == null ? null : Path.of(c.kernel()), c.initrd() == null ? null : Path.of(c.initrd()));
    }

    public boolean running(PodRecord pod) {
        return PodMonitor.runningQemu(pod).isPresent();
    }

    /** Running, or a monitor lives (one still booting the VM, say): the pod is not idle. */
    public boolean active(PodRecord pod) throws VmException {
        return running(pod) || MonitorLink.monitorAlive(root, pod.name());
    }

    /** What {@link #undoBoot} needs to put the pod back, taken before a call that may boot it. */
    public Before before(String name, String except) throws VmException {
        PodRecord pod = require(name);
        return new Before(pod, active(pod), root.containers(name).stream().filter(c -> !c.name().equals(except)).toList());
    }

    /**
     * Undoes a boot that a failed call started: when the pod was idle before the call, its VM is ended
     * at once, and its state file and its other containers' records are written back as they were
     * (the boot re-created the kept containers and marked them created), so that `pod ls` and `ls`
     * say what they said before. A pod that was active before is left alone.
     */
    public void undoBoot(Before before) throws VmException {
        if (before.active()) {
            return;
        }
        PodProcesses.end(root, before.pod().name(), END_WAIT);
        if (root.pod(before.pod().name()).isEmpty()) {
            return; // removed meanwhile
        }
        root.write(before.pod());
        for (ContainerRecord c : before.containers()) {
            if (root.container(c.name()).isPresent()) {
                root.write(c);
            }
        }
    }

    /** A monitor that answers now, or null: never starts one, never waits for a boot. */
    public AgentClient serving(PodRecord pod) throws VmException {
        return link.connectIfServing(pod.name());
    }

    /**
     * Starts the pod's VM (and its monitor) if it does not run, and connects to its monitor. A VM booted
     * here is new and empty: the containers the pod kept from an earlier boot (`pod stop` keeps their
     * records, specs and images) are created in it again, not started, so they answer as stopped and
     * `start C` runs them (what podman's stopped pod offers).
     */
    public AgentClient start(String name) throws VmException {
        return start(name, null);
    }

    /**
     * A pod's boot begun by {@link #launch}: whether it boots (it did not run) and the monitor started
     * for it (null: a stand-in starter's, or one that lived already).
     */
    public record Launch(boolean boot, Process monitor) {
    }

    /**
     * Starts the monitor of a pod that does not run, without waiting for its VM: a create makes its
     * disks while the monitor's JVM starts and qemu boots, and then calls {@link #start(String, Launch)}
     * with it, which waits for the boot and re-creates the pod's kept containers. (Once the monitor
     * records its qemu the pod counts as running, so whether it boots is decided here, before.)
     */
    public Launch launch(String name) throws VmException {
        PodRecord pod = require(name);
        if (running(pod)) {
            return new Launch(false, null);
        }
        image(pod);
        return new Launch(true, link.launch(name));
    }

    /** {@link #start(String)}, with the boot {@link #launch} began (null: none was). */
    public AgentClient start(String name, Launch launched) throws VmException {
        PodRecord pod = require(name);
        boolean boot = launched != null ? launched.boot() : !running(pod);
        if (boot) {
            image(pod); // fail here, in one line, rather than in the monitor's log
        }
        AgentClient monitor = link.connect(name, launched != null ? launched.monitor() : null);
        if (boot) {
            try {
                recreate(monitor, name);
            } catch (VmException | RuntimeException e) {
                monitor.close();
                throw e;
            }
        }
        return monitor;
    }

    /**
     * `pod start`: boots the VM and starts every container the pod kept (podman's `pod start` starts
     * its containers); a pod that already runs is left as it is. The names it started.
     */
    public List<String> startWithContainers(String name) throws VmException {
        PodRecord pod = require(name);
        boolean boot = !running(pod);
        List<String> started = new ArrayList<>();
        try (AgentClient monitor = start(name)) {
            if (!boot) {
                return started;
            }
            for (ContainerRecord c : root.containers(name)) {
                if (!"created".equals(c.lastState())) {
                    continue; // not re-created: recreate() said why, or it is still being made by another call
                }
                // recorded running by the monitor
                monitor.call(MonitorMethods.START_CONTAINER, StartContainerRequest.newBuilder().setId(c.name()).build(),
                        Duration.ofSeconds(60));
                Containers.closeStdinUnlessTerminal(root, monitor, c, Duration.ofSeconds(30));
                started.add(c.name());
            }
        } catch (RpcException e) {
            throw new VmException("pod " + name + ": starting its containers failed: " + e.getMessage(), e);
        }
        return started;
    }

    /**
     * Creates the pod's recorded containers in a freshly booted VM from what their create left in the
     * state directory: the built spec (config.json) and the root filesystem image, hot-plugged under
     * the same serial. A container still being created ("creating": the call that boots the VM for it
     * adds it itself) is skipped. Every container is tried; those that fail are named in one error.
     */
    private void recreate(AgentClient monitor, String pod) throws VmException {
        // a call that raced this one to boot the pod may have created some already: their disks are
        // plugged, and a second hot-plug under the same serial would fail
        java.util.Set<String> inGuest = new java.util.HashSet<>();
        try {
            for (var info : monitor.call(AgentMethods.Containers.LIST, ListContainersRequest.getDefaultInstance(),
                    Duration.ofSeconds(30)).getContainersList()) {
                inGuest.add(info.getId());
            }
        } catch (RpcException e) {
            throw new VmException("pod " + pod + ": listing its containers failed: " + e.getMessage(), e);
        }
        List<String> failed = new ArrayList<>();
        for (ContainerRecord c : root.containers(pod)) {
            if ("creating".equals(c.lastState()) || inGuest.contains(c.name())) {
                continue;
            }
            Path dir = root.containerDir(pod, c.name());
            try {
                int pid = monitor.call(MonitorMethods.ADD_CONTAINER, Containers.addRequest(dir, c,
                        Files.readAllBytes(dir.resolve("config.json"))), Duration.ofSeconds(120)).getPid();
                root.write(c.created(pid));
            } catch (RpcException e) {
                if (e.code() != io.jrunc.ttrpc.Code.ALREADY_EXISTS) {
                    failed.add(c.name() + " (" + e.getMessage() + ")");
                }
            } catch (IOException e) {
                failed.add(c.name() + " (" + e.getMessage() + ")");
            }
        }
        if (!failed.isEmpty()) {
            throw new VmException("pod " + pod + " booted, but its container(s) " + String.join(", ", failed)
                    + " could not be created again: remove them (rm -f)");
        }
    }

    /** Connects to a running pod's monitor (starting a new monitor if the old one died); never boots. */
    public AgentClient connectRunning(PodRecord pod) throws VmException {
        if (!running(pod)) {
            Path log = root.podDir(pod.name()).resolve("monitor.log");
            // a VM that ended by itself (qemu died, the guest powered off) says why in the monitor's log
            throw new VmException("pod \"" + pod.name() + "\" is not running" + (pod.vm().everBooted() && Files.exists(log)
                    ? " (its VM's last word, in " + log + ": " + MonitorLink.lastLine(log) + ")" : ""));
        }
        return link.connect(pod.name());
    }

    /** How long the pod's processes may take to end after SIGKILL. */
    private static final Duration END_WAIT = Duration.ofSeconds(30);

    /**
     * Powers the VM off: through the agent, which gives each container SIGTERM and {@code grace}
     * before SIGKILL; with no grace at all, at once ({@link PodProcesses#end}: qemu and the monitor
     * get SIGKILL, whether the VM is up, still booting, or left by a killed call). Its containers are
     * then stopped. qemu's exit code, -1 when unknown, or null when nothing ran.
     */
    public Integer stop(String name, Duration grace) throws VmException {
        PodRecord pod = require(name);
        if (grace.isZero()) {
            if (!PodProcesses.end(root, name, END_WAIT)) {
                return null;
            }
            markStopped(name);
            return -1;
        }
        if (!running(pod)) {
            return null;
        }
        try (AgentClient monitor = link.connect(name)) {
            int exit = monitor.call(MonitorMethods.SHUTDOWN, ShutdownRequest.newBuilder()
                    .setGraceNanos(grace.toNanos()).setTimeoutNanos(Duration.ofSeconds(90).toNanos()).build(),
                    Duration.ofSeconds(120)).getQemuExit();
            markStopped(name);
            return exit;
        } catch (RpcException e) {
            // the monitor ends with qemu: a connection that closed once qemu is gone is a completed stop
            awaitQemuGone(pod);
            if (e.code() == io.jrunc.ttrpc.Code.UNAVAILABLE && !running(pod)) {
                markStopped(name);
                return -1;
            }
            throw new VmException("pod " + name + ": stop failed: " + e.getMessage(), e);
        } finally {
            awaitQemuGone(pod);
            awaitMonitorGone(name);
        }
    }

    /**
     * Waits (up to END_WAIT) for the pod's monitor to end: it answers Shutdown before it removes its
     * socket and the VM's files, and a stop that returned at the answer left them behind for a moment
     * after the call (a caller's next look at the pod's directory found monitor.sock).
     */
    private void awaitMonitorGone(String name) throws VmException {
        long deadline = System.nanoTime() + END_WAIT.toNanos();
        while (MonitorLink.monitorAlive(root, name) && System.nanoTime() < deadline) {
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    private void awaitQemuGone(PodRecord pod) {
        PodMonitor.runningQemu(pod).ifPresent(h -> {
            try {
                h.onExit().get(30, java.util.concurrent.TimeUnit.SECONDS);
            } catch (Exception ignored) {
                // reported by the next status query
            }
        });
    }

    /** Every container stopped, but one whose create never finished (it stays "creating", for rm -f). */
    private void markStopped(String pod) throws VmException {
        for (ContainerRecord c : root.containers(pod)) {
            if (!"stopped".equals(c.lastState()) && !"creating".equals(c.lastState())) {
                root.write(c.withState("stopped", c.exitCode()));
            }
        }
    }

    /**
     * Removes a pod: refused while it has containers unless force, which takes them. A running VM is
     * stopped with {@code grace} for its containers first; with none (or, forced, when that stop
     * fails), it is ended at once. Either way whatever process of the pod is left (a monitor still
     * booting, one a killed call left) is ended before the state goes.
     */
    @SuppressWarnings("try") // the resource is a lock held for the block
    public void remove(String name, boolean force, Duration grace) throws VmException {
        if (root.pod(name).isEmpty()) {
            // a pod create killed while it wrote the record left a directory no listing shows
            removeUnrecorded(List.of(name));
        }
        PodRecord pod = require(name);
        List<ContainerRecord> members = root.containers(name);
        if (!members.isEmpty() && !force) {
            throw new VmException("pod \"" + name + "\" has " + members.size() + " container(s): remove them first, or use pod rm -f");
        }
        if (!grace.isZero() && running(pod)) {
            try {
                stop(name, grace);
            } catch (VmException e) {
                if (!force) {
                    throw e;
                }
                // forced: a VM that would not stop in order is ended below all the same
            }
        }
        PodProcesses.end(root, name, END_WAIT);
        // a monitor killed with its qemu could not remove the tap and qdisc of a `--network ns:` pod
        io.jrunc.vm.monitor.PodBoot.detachNetwork(pod);
        try (AutoCloseable ignored = root.lock()) {
            StateRoot.removeTree(root.podDir(name));
        } catch (VmException e) {
            throw e;
        } catch (Exception e) {
            throw new VmException("cannot remove pod " + name + ": " + e.getMessage(), e);
        }
    }

    /**
     * Removes pods' directories that have no pod.json (of those named, or all when null), under the
     * state root's lock, under which every pod's first record is written whole: what a call killed
     * while it wrote one left behind. Nothing of such a pod ever ran.
     */
    @SuppressWarnings("try") // the resource is a lock held for the block
    private List<String> removeUnrecorded(List<String> names) throws VmException {
        try (AutoCloseable ignored = root.lock()) {
            List<String> unrecorded = root.unrecordedPods().stream().filter(n -> names == null || names.contains(n)).toList();
            for (String name : unrecorded) {
                StateRoot.removeTree(root.podDir(name));
            }
            return unrecorded;
        } catch (VmException e) {
            throw e;
        } catch (Exception e) {
            throw new VmException("cannot remove a pod's directory: " + e.getMessage(), e);
        }
    }

    /** The pods `pod prune` removes: not running, anonymous unless all. */
    public List<String> prune(boolean all) throws VmException {
        List<String> removed = new ArrayList<>(removeUnrecorded(null));
        for (PodRecord pod : root.pods()) {
            if (!all && !pod.anonymous()) {
                continue;
            }
            // a pod a create is filling is not idle, booted or not (an anonymous pod exists before its VM)
            java.util.Optional<StateRoot.Held> claim = root.tryClaim(pod.name());
            if (claim.isEmpty()) {
                continue;
            }
            try (StateRoot.Held held = claim.get()) {
                if (!active(pod)) {
                    remove(pod.name(), true, Duration.ZERO);
                    removed.add(pod.name());
                }
            }
        }
        return removed;
    }

    public String state(PodRecord pod) {
        return state(pod, running(pod));
    }

    private static String state(PodRecord pod, boolean running) {
        if (running) {
            return "running";
        }
        return pod.vm().everBooted() ? "stopped" : "created";
    }

    public ObjectNode inspect(String name) throws VmException {
        PodRecord pod = require(name);
        ObjectNode out = io.jrunc.vm.state.RecordTrees.of(pod);
        // one look at qemu for the whole answer (each reads its /proc entries and its owner's passwd line)
        boolean running = running(pod);
        out.put("state", state(pod, running));
        long swapBytes = pod.config().swapBytes();
        out.put("memory", Sizes.format(pod.config().memoryBytes()));
        out.put("vmMemoryMiB", QemuCommand.vmMemoryMiB(pod.config().memoryBytes()));
        Kvm.Verdict kvm = Kvm.verdict(root.path());
        out.put("accelerator", kvm.accelerator());
        out.put("vmCpus", QemuCommand.vmCpus(pod.config().cpus(), kvm.kvm()));
        if (swapBytes > 0 && !running) {
            out.putObject("swap").put("size", Sizes.format(swapBytes)).put("sizeBytes", swapBytes);
        }
        String installed;
        try {
            installed = image(pod).digest();
        } catch (VmException e) {
            installed = null;
        }
        out.put("installedDigest", installed);
        String booted = pod.vm().bootedDigest();
        boolean newer = installed != null && booted != null && !installed.equals(booted)
                && !VmImage.UNKNOWN_DIGEST.equals(installed);
        out.put("imageNewer", newer);
        if (newer) {
            out.put("note", "the installed VM image (" + installed + ") is newer than the one this pod booted; restart the pod to use it");
        }
        if (running) {
            try (AgentClient monitor = link.connect(name)) {
                StatusResponse s = monitor.call(MonitorMethods.STATUS, StatusRequest.getDefaultInstance(), Duration.ofSeconds(30));
                out.put("vmStatus", s.getVmStatus());
                out.put("monitorPid", s.getMonitorPid());
                out.put("agent", s.getAgent() + " " + s.getAgentMajor() + "." + s.getAgentMinor());
                // what the guest kernel says (the agent's Pod Stats): the memory the pod's containers
                // have, and the agent's own cgroup, which creating containers must never change
                PodStatsResponse g = monitor.call(AgentMethods.Pod.STATS, PodStatsRequest.getDefaultInstance(), Duration.ofSeconds(30));
                out.putObject("guest").put("memTotal", g.getMemTotalBytes()).put("memAvailable", g.getMemAvailableBytes())
                        .put("agentCgroup", g.getAgentCgroup());
                if (swapBytes > 0) {
                    PodSwap.describe(out.putObject("swap"), pod, g.getSwapsList());
                }
            } catch (RpcException e) {
                throw new VmException("pod " + name + ": status query failed: " + e.getMessage(), e);
            }
        }
        ArrayNode volumes = out.putArray("volumes");
        for (PodVolumes.Disk v : PodVolumes.list(root.podDir(name))) {
            volumes.addObject().put("name", v.name()).put("size", Sizes.format(sizeOf(v.file()))).put("file", v.file().toString());
        }
        ArrayNode containers = out.putArray("containers");
        for (ContainerRecord c : root.containers(name)) {
            containers.add(c.name());
        }
        return out;
    }

    private static long sizeOf(Path file) throws VmException {
        try {
            return Files.size(file);
        } catch (IOException e) {
            throw new VmException("cannot read " + file + ": " + e.getMessage(), e);
        }
    }

    public Optional<PodRecord> find(String name) throws VmException {
        return root.pod(name);
    }
}
