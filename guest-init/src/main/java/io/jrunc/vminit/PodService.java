package io.jrunc.vminit;

import io.jrunc.agent.api.AgentMethods;
import io.jrunc.agent.api.pb.v1.ConfigurePodRequest;
import io.jrunc.agent.api.pb.v1.ConfigurePodResponse;
import io.jrunc.agent.api.pb.v1.HostEntry;
import io.jrunc.agent.api.pb.v1.NetworkConfig;
import io.jrunc.agent.api.pb.v1.PodStatsResponse;
import io.jrunc.agent.api.pb.v1.ShutdownResponse;
import io.jrunc.agent.api.pb.v1.Sysctl;
import io.jrunc.bindings.Uts;
import io.jrunc.ttrpc.Code;
import io.jrunc.ttrpc.Dispatcher;
import io.jrunc.ttrpc.RpcException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * jrunc.agent.v1.Pod: what the machine is (hostname, resolver, hosts file, kernel parameters, network:
 * {@link PodNetwork}), its
 * memory and swap area ({@link SwapArea}), its volumes ({@link PodVolumes}), and Shutdown. Each Configure replaces the hostname it names,
 * the resolver and hosts file (written even when empty: containers bind them) and the sysctls it names,
 * so a repeated call is harmless.
 */
final class PodService {
    static final Path HOSTNAME = Path.of("/etc/hostname"), RESOLV_CONF = Path.of("/etc/resolv.conf"), HOSTS = Path.of("/etc/hosts");
    private final PodConfig pod;
    private final PowerOff powerOff;
    private final SwapArea swap = new SwapArea();
    private final PodVolumes volumes = new PodVolumes();
    private final HostTimeAndEntropy hostTime = new HostTimeAndEntropy();
    /** The network the last successful apply set up; Configures are answered one at a time. */
    private NetworkConfig appliedNetwork;

    PodService(PodConfig pod, PowerOff powerOff) {
        this.pod = pod;
        this.powerOff = powerOff;
    }

    void register(Dispatcher d) {
        d.register(AgentMethods.Pod.CONFIGURE, (c, r) -> configure(r));
        d.register(AgentMethods.Pod.STATS, (c, r) -> stats(swap.serial()));
        d.register(AgentMethods.Pod.ADD_SWAP, (c, r) -> swap.add(r));
        d.register(AgentMethods.Pod.ADD_VOLUME, (c, r) -> volumes.add(r));
        d.register(AgentMethods.Pod.SHUTDOWN, (c, r) -> {
            powerOff.begin(r.getGraceNanos());
            return ShutdownResponse.getDefaultInstance();
        });
    }

    private synchronized ConfigurePodResponse configure(ConfigurePodRequest r) throws RpcException {
        long start = System.nanoTime();
        long network;
        try {
            hostTime.apply(r);
            for (Sysctl e : r.getSysctlsList()) {
                String key = e.getName();
                if (key.isEmpty() || key.contains("..") || key.contains("/") && key.contains(".")) {
                    throw new RpcException(Code.INVALID_ARGUMENT, "sysctls: bad name " + key);
                }
                Path file = Path.of("/proc/sys", key.replace('.', '/'));
                if (!Files.exists(file)) {
                    throw new RpcException(Code.INVALID_ARGUMENT, "sysctls: no kernel parameter " + key);
                }
                Files.writeString(file, e.getValue());
            }
            CgroupSetup.ContainerCpus cpus = CgroupSetup.limitContainerCpus(r.getContainerCpus());
            if (cpus != null) {
                Console.log("containers: CPUs %s of %s (the rest the agent's)", cpus.containers(), cpus.online());
            }
            // lo always, and the interfaces and routes the host named (none: lo is the pod's only link);
            // not again when they are the ones this agent last applied: a VM restored from the template
            // wakes with the template's, which are every restored pod's (168 ms of its first Configure,
            // under emulation, went to finding each of them in place)
            long beforeNetwork = System.nanoTime();
            if (!r.getNetwork().equals(appliedNetwork)) {
                PodNetwork.apply(r.getNetwork());
                appliedNetwork = r.getNetwork();
            } else {
                Console.log("network: as already configured");
            }
            network = System.nanoTime() - beforeNetwork;
            List<String> files = new java.util.ArrayList<>();
            if (!r.getHostname().isEmpty()) {
                Uts.sethostname(r.getHostname());
                Files.writeString(HOSTNAME, r.getHostname() + "\n");
                pod.hostname = r.getHostname();
                files.add(HOSTNAME.toString());
            }
            // Both are written whether or not the host named anything: each container binds them. A pod
            // given no resolver gets an empty resolv.conf (it has no network); hosts always has localhost.
            // Written in place (never renamed over), so containers' bind mounts see a repeated Configure.
            StringBuilder resolv = new StringBuilder();
            if (r.hasDns()) {
                for (String n : r.getDns().getNameserversList()) {
                    resolv.append("nameserver ").append(n).append('\n');
                }
                if (r.getDns().getSearchesCount() > 0) {
                    resolv.append("search ").append(String.join(" ", r.getDns().getSearchesList())).append('\n');
                }
                if (r.getDns().getOptionsCount() > 0) {
                    resolv.append("options ").append(String.join(" ", r.getDns().getOptionsList())).append('\n');
                }
            }
            Files.writeString(RESOLV_CONF, resolv);
            StringBuilder hosts = new StringBuilder("127.0.0.1 localhost\n::1 localhost\n");
            for (HostEntry h : r.getHostsList()) {
                hosts.append(h.getIp()).append(' ').append(String.join(" ", h.getNamesList())).append('\n');
            }
            Files.writeString(HOSTS, hosts);
            files.add(RESOLV_CONF.toString());
            files.add(HOSTS.toString());
            pod.files = List.copyOf(files);
        } catch (IOException | io.jrunc.bindings.ErrnoException e) {
            throw new RpcException(Code.INVALID_ARGUMENT, "configure: " + e.getMessage());
        }
        Console.log("pod configured in %d ms (the network %d ms)", (System.nanoTime() - start) / 1_000_000, network / 1_000_000);
        return ConfigurePodResponse.getDefaultInstance();
    }

    private static PodStatsResponse stats(String swapSerial) throws RpcException {
        try {
            String meminfo = KernelFiles.read("/proc/meminfo");
            if (meminfo == null) {
                throw new IOException("no /proc/meminfo");
            }
            PodStatsResponse.Builder b = PodStatsResponse.newBuilder()
                    .setMemTotalBytes(KernelFiles.field(meminfo, "MemTotal:") * 1024)
                    .setMemAvailableBytes(KernelFiles.field(meminfo, "MemAvailable:") * 1024)
                    .setSwapTotalBytes(KernelFiles.field(meminfo, "SwapTotal:") * 1024)
                    .setSwapFreeBytes(KernelFiles.field(meminfo, "SwapFree:") * 1024);
            String cgroup = KernelFiles.read("/proc/self/cgroup");
            b.setAgentCgroup(cgroup == null ? "" : cgroup.trim());
            for (io.jrunc.agent.api.pb.v1.SwapArea area : swaps()) {
                b.addSwaps(swapSerial != null && isDisk(area.getDevice(), swapSerial)
                        ? area.toBuilder().setSerial(swapSerial).build() : area);
            }
            return b.build();
        } catch (IOException | RuntimeException e) {
            throw new RpcException(Code.INTERNAL, "reading /proc/meminfo: " + e);
        }
    }

    /** /proc/swaps, sizes in bytes (the file counts KiB). */
    static List<io.jrunc.agent.api.pb.v1.SwapArea> swaps() throws IOException {
        String text = KernelFiles.read("/proc/swaps");
        String[] lines = KernelFiles.lines(text == null ? "" : text);
        List<io.jrunc.agent.api.pb.v1.SwapArea> areas = new java.util.ArrayList<>();
        for (int i = 1; i < lines.length; i++) { // the first line is the header
            List<String> f = KernelFiles.words(lines[i]);
            areas.add(io.jrunc.agent.api.pb.v1.SwapArea.newBuilder().setDevice(f.get(0))
                    .setSizeBytes(Long.parseLong(f.get(2)) * 1024).setUsedBytes(Long.parseLong(f.get(3)) * 1024)
                    .setPriority(Integer.parseInt(f.get(4))).build());
        }
        return areas;
    }

    /**
     * Whether the area listed as {@code device} is the disk with this serial. /proc/swaps names an area
     * by its path as the reader's root resolves it: one enabled in another mount namespace that is gone
     * may show as "/", which names no disk.
     */
    static boolean isDisk(String device, String serial) {
        Path name = Path.of(device).getFileName();
        if (name == null) {
            return false;
        }
        try {
            String text = KernelFiles.read("/sys/block/".concat(name.toString()).concat("/serial"));
            return text != null && text.trim().equals(serial);
        } catch (IOException e) {
            return false;
        }
    }
}
