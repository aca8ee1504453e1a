package io.jrunc.tests.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.StatusRuntimeException;
import io.jrunc.testsupport.Requirements;
import io.jrunc.tests.cri.v1.ImageSpec;
import io.jrunc.tests.cri.v1.ImageStatusRequest;
import io.jrunc.tests.cri.v1.ListPodSandboxRequest;
import io.jrunc.tests.cri.v1.PodSandbox;
import io.jrunc.tests.cri.v1.RemovePodSandboxRequest;
import io.jrunc.tests.cri.v1.RuntimeCondition;
import io.jrunc.tests.cri.v1.StatusRequest;
import io.jrunc.tests.cri.v1.StopPodSandboxRequest;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * containerd with its CRI plugin, as a Kubernetes node runs it, but entirely private: its own config,
 * root, state, sockets and opt directory under a temporary directory (never /run/containerd, which the
 * system's containerd and Docker use), network namespaces under its state directory, CNI from Debian's
 * containernetworking-plugins (bridge, host-local, loopback) with a configuration directory, bridge,
 * subnet and IPAM store of its own, and the runc runtime's state in its own root. The sandbox ("pause")
 * image and the containers' image are busybox images built here and imported into the CRI plugin's
 * containerd namespace, k8s.io (no registry is reachable). {@link #close} takes every pod down, stops
 * containerd by its pid and removes what is left: processes, mounts, the bridge, cgroups, CNI state
 * and the directory; it fails if any of it had to be removed by force.
 */
final class CriContainerd implements AutoCloseable {
    /** The containerd namespace of everything the CRI plugin makes. */
    static final String NAMESPACE = "k8s.io";
    static final String PAUSE_IMAGE = "localhost/jrunc-pause:e2e";
    /** Where containerd 1.6 puts every shim's socket, whatever its config says. */
    static final Path SHIM_SOCKETS = Path.of("/run/containerd/s");
    /** libcni's cache (results of ADD, removed by DEL): containerd 1.6 does not let the CRI plugin move it. */
    private static final Path CNI_CACHE = Path.of("/var/lib/cni");

    final Path work;
    final Path socket;
    /** The linux bridge CNI attaches pods to, and its subnet's first three octets ("10.x.y"). */
    final String bridge;
    final String subnetPrefix;
    /** Cgroup parent of the pods (cgroupfs paths: the runc handler's default driver). */
    final String cgroupParent;
    final Command cmd;
    private final boolean cniCacheExisted;
    private Process containerd;
    private CriClient cri;

    private CriContainerd(Path work) {
        this.work = work;
        this.socket = work.resolve("containerd.sock");
        String tag = HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextInt()).substring(2);
        this.cmd = new Command(work.resolve("out"), Map.of());
        this.bridge = "jrcri" + tag;
        this.subnetPrefix = freeSubnetPrefix();
        this.cgroupParent = "/" + work.getFileName();
        this.cniCacheExisted = Files.exists(CNI_CACHE);
    }

    /**
     * The runtime handlers (RuntimeClass handler names) this containerd knows, each a table of the
     * CRI plugin's config. jrunc's are configured whether or not their shim is built: containerd looks
     * for a shim binary only when a pod asks for its handler.
     */
    enum Handler {
        /** containerd's own runc shim driving runc: the reference the jrunc handlers are held to. */
        RUNC("runc", "io.containerd.runc.v2", false, """
                  [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
                    Root = "%1$s/runc"
                """),
        /** containerd's runc shim driving jrunc as its runc binary: how Kubernetes reaches jrunc without its shim. */
        RUNC_SHIM_JRUNC("runc-shim-jrunc", "io.containerd.runc.v2", false, """
                  [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc-shim-jrunc.options]
                    BinaryName = "%2$s/jrunc"
                    Root = "%1$s/runc-shim-jrunc"
                """),
        /** containerd-shim-jrunc-v2 with its host back end (the default). */
        JRUNC_HOST("jrunc-host", "io.containerd.jrunc.v2", false, ""),
        /** containerd-shim-jrunc-v2 with its VM back end (the file {@link #start} writes): one pod VM per sandbox. */
        JRUNC_VM("jrunc-vm", "io.containerd.jrunc.v2", true, """
                  [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.jrunc-vm.options]
                    ConfigPath = "%1$s/jrunc-vm.toml"
                """);

        final String handlerName;
        final String runtimeType;
        /** Whether a pod of this handler is one qemu, a child of its shim. */
        final boolean vmPerPod;
        private final String options;

        Handler(String handlerName, String runtimeType, boolean vmPerPod, String options) {
            this.handlerName = handlerName;
            this.runtimeType = runtimeType;
            this.vmPerPod = vmPerPod;
            this.options = options;
        }

        @Override
        public String toString() {
            return handlerName;
        }

        /** What a pod of this handler needs beyond containerd and runc: fails under CI, skips elsewhere. */
        void require() {
            if (this == RUNC) {
                return;
            }
            if (this == RUNC_SHIM_JRUNC) {
                E2eHost.jrunc();
                return;
            }
            Path shim = binDir().resolve("containerd-shim-jrunc-v2");
            Requirements.require(Files.isExecutable(shim), shim + ", the shim of runtime type " + runtimeType
                    + ": `make build` builds it (or -Djrunc.binary names a build/bin/jrunc beside it)");
            if (vmPerPod) {
                Path image = vmImage();
                Requirements.require(Files.isRegularFile(image.resolve("vmlinuz")), "the pod VM image " + image
                        + ": `make vm-image` builds it, or -Djrunc.vm.image names another");
                Requirements.requireCommands("qemu-system-x86", "qemu-system-x86_64");
            }
        }

        /**
         * Whether ContainerStats works with this handler here. containerd 1.6's runc shim loads a
         * container's v1 cgroups from every hierarchy its /proc/PID/cgroup lists, and keeps no cgroup
         * (so answers no stats) when one of them is not mounted ("cannot find cgroup mount
         * destination"), as net_cls,net_prio is not on this project's build hosts.
         */
        boolean hasStats() {
            return !runtimeType.equals("io.containerd.runc.v2") || unmountedV1Hierarchies().isEmpty();
        }

        private String toml(Path work) {
            return """
                    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.%s]
                      runtime_type = "%s"
                      pod_annotations = ["io.jrunc.*"]
                    """.formatted(handlerName, runtimeType) + options.formatted(work, binDir());
        }
    }

    /**
     * Starts containerd with the CRI plugin and waits until the plugin reports the runtime and the
     * network ready and both images are known to it.
     */
    static CriContainerd start() throws Exception {
        E2eHost.requireRootAndCommands("containerd containernetworking-plugins iproute2",
                "containerd", "ctr", "containerd-shim-runc-v2", "runc", "tar", "ip");
        for (String plugin : List.of("bridge", "host-local", "loopback")) {
            Requirements.require(Files.isExecutable(Path.of("/usr/lib/cni", plugin)), "the CNI plugin /usr/lib/cni/"
                    + plugin + ": install the Debian package containernetworking-plugins (`make deps` does)");
        }
        CriContainerd host = new CriContainerd(Files.createTempDirectory("jrunc-e2e-cri-"));
        try {
            host.writeCniConfig();
            Files.writeString(host.work.resolve("jrunc-vm.toml"), """
                    backend = "vm"
                    [vm]
                    root = "%s"
                    image = "%s"
                    """.formatted(host.vmStateRoot(), vmImage()));
            host.containerd = E2eHost.startContainerd(host.work, host.socket, host.work.resolve("config.toml"),
                    host.log(), host.criConfig(), Map.of("PATH", binDir() + ":" + E2eHost.PATH_ENV.substring(5)));
            host.cri = CriClient.connect(host.socket, Duration.ofSeconds(90));
            assertTrue(E2eHost.eventually(30, host::ready), "containerd's CRI plugin did not become ready:\n"
                    + host.logTail());
            host.importImages();
            return host;
        } catch (Throwable t) {
            try {
                host.close();
            } catch (Throwable cleanup) {
                t.addSuppressed(cleanup);
            }
            throw t;
        }
    }

    /** The directory of the binaries under test (build/bin), put first on containerd's PATH for its shims. */
    static Path binDir() {
        return Path.of(System.getProperty("jrunc.binary", "../build/bin/jrunc")).toAbsolutePath().normalize().getParent();
    }

    /** The pod VM image the VM back end boots: -Djrunc.vm.image, else build/vm-image beside build/bin. */
    static Path vmImage() {
        return Path.of(System.getProperty("jrunc.vm.image", binDir().resolveSibling("vm-image").toString()))
                .toAbsolutePath().normalize();
    }

    /**
     * The VM back end's state root (its pods, monitors' sockets, rewritten bundles): this containerd's
     * own, so `jrunc-vm --root DIR pod ls` shows its pods and nothing of it outlives the class.
     */
    Path vmStateRoot() {
        return work.resolve("jrunc-vm");
    }

    CriClient cri() {
        return cri;
    }

    Path log() {
        return work.resolve("containerd.log");
    }

    /** The last lines of containerd's log, for assertion messages. */
    String logTail() {
        List<String> lines = Command.read(log()).lines().toList();
        return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
    }

    /** Where the CRI plugin mounts the pods' network namespaces (netns_mounts_under_state_dir). */
    Path netnsDir() {
        return work.resolve("state/io.containerd.grpc.v1.cri/netns");
    }

    /** The host-local IPAM plugin's leases. */
    Path ipamDir() {
        return work.resolve("cni/ipam");
    }

    /**
     * The shim socket containerd 1.6 expects for shim {@code id} of this containerd (the sandbox's id for
     * a grouped pod): /run/containerd/s/ followed by the sha256 of "address/namespace/id".
     */
    Path shimSocket(String id) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256")
                    .digest((socket + "/" + NAMESPACE + "/" + id).getBytes(StandardCharsets.UTF_8));
            return SHIM_SOCKETS.resolve(HexFormat.of().formatHex(digest));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Shim processes of this containerd (their command line names its socket): pid to command line.
     * A Go shim's command is its binary, containerd-shim-*; jrunc's is a JVM running io.jrunc.shim.
     */
    Map<Long, String> shims() {
        Map<Long, String> found = E2eHost.processesMentioning(socket.toString());
        found.values().removeIf(c -> !c.contains("containerd-shim") && !c.contains("io.jrunc.shim"));
        return found;
    }

    /** Processes below this containerd's shims whose command line contains {@code command} (qemu of a pod VM). */
    List<ProcessHandle> shimDescendants(String command) {
        return shims().keySet().stream().flatMap(pid -> ProcessHandle.of(pid).stream())
                .flatMap(ProcessHandle::descendants)
                .filter(p -> p.info().commandLine().orElse("").contains(command))
                .toList();
    }

    /** Host-side interfaces enslaved to the pods' bridge (one veth per pod). */
    List<String> bridgePorts() {
        Command.Result r = cmd.run(List.of("ip", "-o", "link", "show", "master", bridge));
        return r.exitCode() != 0 ? List.of() : r.out().lines().map(l -> l.split(":")[1].strip()).toList();
    }

    List<String> ctr(String... args) {
        return Command.list(List.of("ctr", "--address", socket.toString(), "--namespace", NAMESPACE), args);
    }

    private String criConfig() {
        StringBuilder toml = new StringBuilder("""
                [plugins."io.containerd.grpc.v1.cri"]
                  sandbox_image = "%1$s"
                  netns_mounts_under_state_dir = true
                  disable_tcp_service = true
                  stream_server_address = "127.0.0.1"
                  stream_server_port = "0"
                  restrict_oom_score_adj = true
                  [plugins."io.containerd.grpc.v1.cri".cni]
                    bin_dir = "/usr/lib/cni"
                    conf_dir = "%2$s/cni/net.d"
                    max_conf_num = 1
                  [plugins."io.containerd.grpc.v1.cri".containerd]
                    snapshotter = "overlayfs"
                    default_runtime_name = "runc"
                """.formatted(PAUSE_IMAGE, work));
        for (Handler h : Handler.values()) {
            toml.append(h.toml(work));
        }
        return toml.toString();
    }

    /*
     * restrict_oom_score_adj: the CRI plugin gives a sandbox an oom_score_adj of -998, and lowering it
     * needs CAP_SYS_RESOURCE, which root lacks on this project's build hosts (the runtime's init then
     * fails); restricted, the plugin never asks for less than containerd's own value.
     */

    /**
     * A bridge network with host-local addresses: the bridge is the pods' gateway, so the host reaches
     * them on it; no masquerading (nothing is written to iptables).
     */
    private void writeCniConfig() throws IOException {
        Files.createDirectories(work.resolve("cni/net.d"));
        Files.writeString(work.resolve("cni/net.d/10-jrunc-e2e.conflist"), """
                {
                  "cniVersion": "1.0.0",
                  "name": "%1$s",
                  "plugins": [
                    {
                      "type": "bridge",
                      "bridge": "%1$s",
                      "isGateway": true,
                      "ipMasq": false,
                      "ipam": {
                        "type": "host-local",
                        "ranges": [[{"subnet": "%2$s.0/24"}]],
                        "dataDir": "%3$s"
                      }
                    }
                  ]
                }
                """.formatted(bridge, subnetPrefix, ipamDir()));
    }

    /** A 10.x.y.0/24 that no address or route of this host is in. */
    private String freeSubnetPrefix() {
        String taken = cmd.run(List.of("ip", "-4", "-o", "addr")).out() + cmd.run(List.of("ip", "-4", "route")).out();
        for (int attempt = 0; attempt < 100; attempt++) {
            String prefix = "10." + ThreadLocalRandom.current().nextInt(200, 250) + "." + ThreadLocalRandom.current().nextInt(1, 255);
            if (!taken.contains(prefix + ".") && !taken.contains(prefix.substring(0, prefix.lastIndexOf('.')) + ".0.0/16")) {
                return prefix;
            }
        }
        throw new AssertionError("no free 10.x.y.0/24 for the pods' bridge:\n" + taken);
    }

    private boolean ready() {
        if (!containerd.isAlive()) {
            throw new AssertionError("containerd exited with " + containerd.exitValue() + ":\n" + logTail());
        }
        try {
            List<RuntimeCondition> conditions = cri.call(CriMethods.STATUS, StatusRequest.getDefaultInstance())
                    .getStatus().getConditionsList();
            return conditions.stream().filter(c -> Set.of("RuntimeReady", "NetworkReady").contains(c.getType()))
                    .filter(RuntimeCondition::getStatus).count() == 2;
        } catch (StatusRuntimeException e) {
            return false; // not listening yet
        }
    }

    /**
     * The busybox image and a sandbox image of the same layer that only waits (what a pause container
     * does: hold the pod's namespaces), imported into k8s.io; the CRI plugin learns of them from
     * containerd's image events.
     */
    private void importImages() throws IOException {
        Path tar = E2eHost.busyboxRootfsTar(work, cmd);
        Path archive = E2eHost.ociArchive(work, tar, cmd, List.of(
                new E2eHost.OciImage(E2eHost.IMAGE, List.of(), List.of("sh")),
                new E2eHost.OciImage(PAUSE_IMAGE, List.of("/bin/sh", "-c"),
                        List.of("trap 'exit 0' TERM INT; while :; do sleep 3600 & wait $!; done"))));
        Command.Result imported = cmd.run(ctr("images", "import", archive.toString()));
        assertEquals(0, imported.exitCode(), imported.describe());
        for (String image : List.of(E2eHost.IMAGE, PAUSE_IMAGE)) {
            assertTrue(E2eHost.eventually(30, () -> cri.call(CriMethods.IMAGE_STATUS, ImageStatusRequest.newBuilder()
                    .setImage(ImageSpec.newBuilder().setImage(image)).build()).hasImage()),
                    "the CRI plugin does not know the imported image " + image + ":\n" + logTail());
        }
    }

    /** Stops and removes every pod the CRI plugin still has (a test that failed half-way left it). */
    void removeAllPods() {
        for (PodSandbox pod : cri.call(CriMethods.LIST_POD_SANDBOX, ListPodSandboxRequest.getDefaultInstance())
                .getItemsList()) {
            try {
                cri.call(CriMethods.STOP_POD_SANDBOX, StopPodSandboxRequest.newBuilder().setPodSandboxId(pod.getId()).build());
                cri.call(CriMethods.REMOVE_POD_SANDBOX,
                        RemovePodSandboxRequest.newBuilder().setPodSandboxId(pod.getId()).build());
            } catch (StatusRuntimeException ignored) {
                // the forced cleanup in close() finds what is left
            }
        }
    }

    /**
     * Takes every pod down, stops containerd (SIGTERM, then SIGKILL after 20 s) and removes whatever is
     * still there; fails listing what had to be removed by force: shims and containers, mounts, the
     * pods' veths, CNI cache entries, cgroups. The bridge itself outlives its pods by CNI's design and is
     * deleted here.
     */
    @Override
    public void close() throws Exception {
        List<String> leftovers = new ArrayList<>();
        try {
            if (cri != null) {
                if (containerd != null && containerd.isAlive()) {
                    try {
                        removeAllPods();
                    } catch (StatusRuntimeException e) {
                        leftovers.add("pods not removed: " + e.getMessage());
                    }
                }
                cri.close();
            }
            if (containerd != null) {
                containerd.destroy();
                if (!containerd.waitFor(20, TimeUnit.SECONDS)) {
                    containerd.destroyForcibly().waitFor();
                }
            }
        } finally {
            // Shims outlive containerd by design; any left means a pod was not removed.
            E2eHost.killProcessesMentioning(work.toString()).forEach(p -> leftovers.add("process " + p));
            E2eHost.unmountUnder(work, cmd).forEach(m -> leftovers.add("mount " + m));
            bridgePorts().forEach(p -> leftovers.add("veth " + p));
            cmd.run(List.of("ip", "link", "delete", bridge));
            cniCacheEntries().forEach(f -> leftovers.add("CNI cache " + f));
            cniCacheEntries().forEach(f -> f.toFile().delete());
            if (!cniCacheExisted && onlyDirectories(CNI_CACHE)) {
                E2eHost.deleteTree(CNI_CACHE); // libcni made it for this class's pods
            }
            for (Path dir : E2eHost.cgroupDirs(cgroupParent)) {
                try (Stream<Path> children = Files.list(dir)) {
                    children.filter(Files::isDirectory).forEach(c -> leftovers.add("cgroup " + c));
                }
            }
            E2eHost.removeCgroupTree(cgroupParent);
            E2eHost.deleteTree(work);
        }
        assertTrue(leftovers.isEmpty(), "left behind: " + leftovers);
        assertTrue(!Files.exists(Path.of("/sys/class/net", bridge)), "bridge " + bridge + " left behind");
    }

    /** The v1 hierarchies this process is in (its /proc/self/cgroup) that no cgroup mount of this host shows. */
    static List<String> unmountedV1Hierarchies() {
        try {
            List<Set<String>> mounted = Files.readAllLines(Path.of("/proc/self/mountinfo")).stream()
                    .map(l -> l.substring(l.indexOf(" - ") + 3).split(" "))
                    .filter(f -> f[0].equals("cgroup") && f.length > 2)
                    .map(f -> Set.of(f[2].split(",")))
                    .toList();
            return Files.readAllLines(Path.of("/proc/self/cgroup")).stream()
                    .map(l -> l.split(":", 3)[1])
                    .filter(controllers -> !controllers.isEmpty())
                    .filter(controllers -> mounted.stream().noneMatch(m -> m.containsAll(List.of(controllers.split(",")))))
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Whether {@code dir} holds nothing but (empty) directories. */
    private static boolean onlyDirectories(Path dir) {
        try (Stream<Path> walk = Files.walk(dir)) {
            return walk.allMatch(Files::isDirectory);
        } catch (IOException | UncheckedIOException e) {
            return false;
        }
    }

    /** libcni's cached results for this class's network (named after the bridge). */
    List<Path> cniCacheEntries() {
        Path results = CNI_CACHE.resolve("results");
        if (!Files.isDirectory(results)) {
            return List.of();
        }
        try (Stream<Path> files = Files.list(results)) {
            return files.filter(f -> f.getFileName().toString().startsWith(bridge + "-")).toList();
        } catch (IOException e) {
            return List.of();
        }
    }
}
