package io.jrunc.vm;

import io.jrunc.agent.api.AgentClient;
import io.jrunc.agent.api.AgentMethods;
import io.jrunc.agent.api.pb.v1.ContainerInfo;
import io.jrunc.agent.api.pb.v1.ContainerStatsRequest;
import io.jrunc.agent.api.pb.v1.ContainerStatsResponse;
import io.jrunc.agent.api.pb.v1.ExecRequest;
import io.jrunc.agent.api.pb.v1.ExitStatus;
import io.jrunc.agent.api.pb.v1.InspectContainerRequest;
import io.jrunc.agent.api.pb.v1.ProcessRef;
import io.jrunc.agent.api.pb.v1.ProcessSpec;
import io.jrunc.agent.api.pb.v1.ResizeTerminalRequest;
import io.jrunc.agent.api.pb.v1.SignalRequest;
import io.jrunc.agent.api.pb.v1.StartContainerRequest;
import io.jrunc.agent.api.pb.v1.WaitRequest;
import io.jrunc.ttrpc.RpcException;
import io.jrunc.vm.qemu.VmImage;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * A pod booted for a program that drives its containers from its own JVM (the containerd shim's VM
 * back end) rather than through jrunc-vm's command line: the same {@link Pods} and
 * {@link Containers} as the CLI, and one connection to the pod's monitor held for the pod's life,
 * over which the agent's calls pass (concurrently: {@link #await} blocks until an exit).
 *
 * <p>Unlike the CLI's {@code start}, {@link #start} does not make the monitor copy the process's
 * output to the pod's log files: the caller reads it with {@link #streams}, as the one reader of the
 * agent's buffers. Containers' roots are host directories shared by virtio-fs
 * ({@code --rootfs-share}), so the caller's directory is what the container sees and writes.
 */
public final class BootedPod implements AutoCloseable {
    /**
     * What the pod is made with.
     *
     * @param name        the pod's name (the name rule: {@link Names})
     * @param cpus        virtual CPUs (0: one)
     * @param memoryBytes the pod's memory (0: the default)
     * @param swapBytes   the pod's swap area (0: none)
     * @param hostname    the pod's hostname (null: its name)
     * @param netns       a network namespace to join ({@code --network ns:PATH}: a tap redirected to its
     *                    one interface), null for user-mode networking
     * @param image       the VM image's directory (vmlinuz and its initramfs); null: found as jrunc-vm
     *                    finds it ($JRUNC_VM_IMAGE, then beside jrunc-vm's jar)
     */
    public record Spec(String name, int cpus, long memoryBytes, long swapBytes, String hostname, Path netns, Path image) {
    }

    /** How long a started process's first calls may take (the agent answers at once when it is up). */
    private static final Duration CALL = Duration.ofSeconds(60);
    /** Wait has no deadline of its own: a process may run for as long as it likes. */
    private static final Duration FOREVER = Duration.ofDays(3650);

    private final Pods pods;
    private final Containers containers;
    private final String name;
    private final AgentClient monitor;

    private BootedPod(Pods pods, String name, AgentClient monitor) {
        this.pods = pods;
        this.containers = new Containers(pods);
        this.name = name;
        this.monitor = monitor;
    }

    /**
     * Creates the pod and boots its VM; on any failure nothing of it is left (no state, monitor,
     * qemu, tap). Returns once the agent answers.
     */
    public static BootedPod boot(Pods pods, Spec spec) throws VmException {
        Pods.NetworkSpec network = spec.netns() == null ? Pods.NetworkSpec.DEFAULT
                : new Pods.NetworkSpec("ns:" + spec.netns(), List.of(), List.of(), List.of());
        Path kernel = null;
        Path initrd = null;
        if (spec.image() != null) {
            kernel = spec.image().resolve(VmImage.KERNEL);
            initrd = VmImage.INITRDS.stream().map(spec.image()::resolve).filter(java.nio.file.Files::isReadable).findFirst()
                    .orElseThrow(() -> new VmException("VM image " + spec.image() + ": no initramfs (" + VmImage.INITRDS + ")"));
        }
        String made = pods.create(new Pods.Spec(spec.name(), spec.cpus(), spec.memoryBytes(), spec.hostname(), List.of(),
                List.of(), List.of(), kernel, initrd, spec.swapBytes(), network), false).name();
        try {
            return new BootedPod(pods, made, pods.start(made));
        } catch (VmException | RuntimeException e) {
            try {
                pods.remove(made, true, Duration.ZERO);
            } catch (VmException ignored) {
                // the boot's failure is what the caller needs to see
            }
            throw e;
        }
    }

    public String name() {
        return name;
    }

    /** The pid of the pod's qemu on the host (what stands for the pod where a caller wants a process). */
    public long qemuPid() throws VmException {
        return pods.require(name).vm().qemuPid();
    }

    /**
     * Adds a container whose root is {@code bundle}'s rootfs directory shared by virtio-fs, with the
     * bundle's config.json as its spec (through the spec builder, as `create --rootfs-share` does), and
     * {@code shares} shared with it as `-v HOSTDIR:CTRPATH` shares them. Created, not started. The
     * guest's pid of its process.
     */
    public int add(String container, Path bundle, List<VolumeFlag.HostDirectory> shares) throws VmException {
        containers.create(new Containers.Spec(name, container, 0, 0, bundle, List.of(), false, false, -1, null,
                shares, null, false, io.jrunc.vm.spec.LayerImage.DEFAULT_BYTES, List.of(), true));
        return inspect(container).getPid();
    }

    /** Starts a created container's process (its output is the caller's to read). */
    public void start(String container) throws VmException {
        containers.require(container);
        // the monitor records it running, and stopped when it ends
        call("start " + container, AgentMethods.Containers.START, StartContainerRequest.newBuilder().setId(container).build());
    }

    /** Runs another process in a running container at once; its pid in the guest. */
    public int exec(String container, String execId, ProcessSpec process) throws VmException {
        return call("exec " + container, AgentMethods.Processes.EXEC, ExecRequest.newBuilder().setContainerId(container)
                .setExecId(execId).setProcess(process).build()).getPid();
    }

    /** A signal to the process (a container's own when {@code execId} is empty), or to all of the container's. */
    public void signal(String container, String execId, int signal, boolean all) throws VmException {
        call("kill " + container, AgentMethods.Processes.SIGNAL, SignalRequest.newBuilder().setProcess(ref(container, execId))
                .setSignal(signal).setAllProcesses(all).build());
    }

    /** Blocks until the process exits; how it ended (the agent answers at once for one that has). */
    public ExitStatus await(String container, String execId) throws VmException {
        try {
            return monitor.call(AgentMethods.Processes.WAIT, WaitRequest.newBuilder().setProcess(ref(container, execId)).build(),
                    FOREVER).getStatus();
        } catch (RpcException e) {
            throw Containers.agentError("wait " + container, e);
        }
    }

    public void resize(String container, String execId, int rows, int columns) throws VmException {
        call("resize " + container, AgentMethods.Processes.RESIZE_TERMINAL, ResizeTerminalRequest.newBuilder()
                .setProcess(ref(container, execId)).setSize(io.jrunc.agent.api.pb.v1.ConsoleSize.newBuilder()
                        .setRows(rows).setColumns(columns)).build());
    }

    /**
     * New memory limits for a created or running container, OCI values (memory+swap total, -1
     * unlimited), merged into those in force as `jrunc update` merges them; null leaves one as it is.
     */
    public void update(String container, Long memoryLimit, Long memorySwap) throws VmException {
        io.jrunc.agent.api.pb.v1.UpdateContainerRequest.Builder b = io.jrunc.agent.api.pb.v1.UpdateContainerRequest.newBuilder()
                .setId(container);
        if (memoryLimit != null) {
            b.setMemoryLimit(memoryLimit);
        }
        if (memorySwap != null) {
            b.setMemorySwap(memorySwap);
        }
        call("update " + container, AgentMethods.Containers.UPDATE, b.build());
    }

    /** Freezes every process of the container (its cgroup's freezer in the guest); answers once frozen. */
    public void pause(String container) throws VmException {
        call("pause " + container, AgentMethods.Containers.PAUSE,
                io.jrunc.agent.api.pb.v1.PauseContainerRequest.newBuilder().setId(container).build());
    }

    /** Thaws a paused container. */
    public void resume(String container) throws VmException {
        call("resume " + container, AgentMethods.Containers.RESUME,
                io.jrunc.agent.api.pb.v1.ResumeContainerRequest.newBuilder().setId(container).build());
    }

    /** The guest's view of the container (state, pid, exit, frozen). */
    public ContainerInfo inspect(String container) throws VmException {
        return call("inspect " + container, AgentMethods.Containers.INSPECT,
                InspectContainerRequest.newBuilder().setId(container).build()).getContainer();
    }

    /** The container's cgroup v2 figures, read in the guest. */
    public ContainerStatsResponse stats(String container) throws VmException {
        return call("stats " + container, AgentMethods.Containers.STATS, ContainerStatsRequest.newBuilder().setId(container).build());
    }

    /** The process's standard streams through the agent (ReadOutput, WriteStdin, CloseStdin). */
    public ProcessStreams streams(String container, String execId) {
        return new ProcessStreams(monitor, ref(container, execId));
    }

    /** Removes the container (killed first if it runs): in the guest, its shares unplugged, its state. */
    public void remove(String container) throws VmException {
        containers.remove(container, true);
    }

    /**
     * Ends the VM at once and removes the pod with whatever it holds: qemu, the monitor, every
     * virtiofsd, the tap and qdisc of a joined namespace, the state. The namespace is the caller's.
     */
    @Override
    public void close() throws VmException {
        monitor.close();
        pods.remove(name, true, Duration.ZERO);
    }

    private static ProcessRef ref(String container, String execId) {
        return ProcessRef.newBuilder().setContainerId(container).setExecId(execId == null ? "" : execId).build();
    }

    private <Q extends com.google.protobuf.Message, R extends com.google.protobuf.Message> R call(
            String what, io.jrunc.ttrpc.Method<Q, R> method, Q request) throws VmException {
        try {
            return monitor.call(method, request, CALL);
        } catch (RpcException e) {
            throw Containers.agentError(what, e);
        }
    }
}
