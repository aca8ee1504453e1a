package io.jrunc.tests.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.grpc.MethodDescriptor;
import io.grpc.StatusRuntimeException;
import io.jrunc.tests.cri.v1.ContainerConfig;
import io.jrunc.tests.cri.v1.ContainerFilter;
import io.jrunc.tests.cri.v1.ContainerMetadata;
import io.jrunc.tests.cri.v1.ContainerState;
import io.jrunc.tests.cri.v1.ContainerStats;
import io.jrunc.tests.cri.v1.ContainerStatsRequest;
import io.jrunc.tests.cri.v1.ContainerStatus;
import io.jrunc.tests.cri.v1.ContainerStatusRequest;
import io.jrunc.tests.cri.v1.CreateContainerRequest;
import io.jrunc.tests.cri.v1.ExecSyncRequest;
import io.jrunc.tests.cri.v1.ExecSyncResponse;
import io.jrunc.tests.cri.v1.ImageSpec;
import io.jrunc.tests.cri.v1.LinuxPodSandboxConfig;
import io.jrunc.tests.cri.v1.ListContainersRequest;
import io.jrunc.tests.cri.v1.ListPodSandboxRequest;
import io.jrunc.tests.cri.v1.PodSandboxConfig;
import io.jrunc.tests.cri.v1.PodSandboxMetadata;
import io.jrunc.tests.cri.v1.PodSandboxState;
import io.jrunc.tests.cri.v1.PodSandboxStatusRequest;
import io.jrunc.tests.cri.v1.PodSandboxStatusResponse;
import io.jrunc.tests.cri.v1.RemoveContainerRequest;
import io.jrunc.tests.cri.v1.RemovePodSandboxRequest;
import io.jrunc.tests.cri.v1.RunPodSandboxRequest;
import io.jrunc.tests.cri.v1.StartContainerRequest;
import io.jrunc.tests.cri.v1.StopContainerRequest;
import io.jrunc.tests.cri.v1.StopPodSandboxRequest;
import io.jrunc.tests.cri.v1.VersionRequest;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Kubernetes' path to a runtime, without a cluster: a CRI client makes the kubelet's calls to
 * containerd's CRI plugin (a private containerd with CNI, {@link CriContainerd}) for each runtime
 * handler, the name a RuntimeClass gives. A pod with two containers: one serves HTTP on the pod's CNI
 * address, which the host fetches; the other reaches it on localhost (one network namespace per
 * pod); ExecSync's output and exit code, ContainerStats, the container logs; StopContainer's exit code
 * and RemoveContainer; then StopPodSandbox and RemovePodSandbox, after which no shim, shim socket, network namespace, veth, mount, cgroup or IPAM
 * lease of the pod is left.
 *
 * <p>{@link #handlers()} lists the handlers under test; every handler of {@link CriContainerd.Handler}
 * is configured in containerd whether tested or not.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class CriTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int HTTP_PORT = 8080;

    private CriContainerd host;
    private CriClient cri;

    /**
     * The runtime handlers every pod case runs with: one line each. JRUNC_VM runs the same case in
     * {@link #vmPodWithTwoContainersServesOnItsCniAddressAndLeavesNothing}, whose pod boots a VM (about
     * a minute under emulation) and so has a longer timeout.
     */
    static Stream<CriContainerd.Handler> handlers() {
        return Stream.of(CriContainerd.Handler.RUNC, CriContainerd.Handler.RUNC_SHIM_JRUNC, CriContainerd.Handler.JRUNC_HOST);
    }

    @BeforeAll
    void startContainerd() throws Exception {
        host = CriContainerd.start();
        cri = host.cri();
    }

    /** A case that failed half-way leaves its pod: stopped and removed before the next case. */
    @AfterEach
    void removePods() {
        if (host != null) {
            host.removeAllPods();
        }
    }

    @AfterAll
    void stopContainerd() throws Exception {
        if (host != null) {
            host.close();
        }
    }

    @Test
    void theCriPluginAnswersAsRuntimeV1() {
        var version = call(CriMethods.VERSION, VersionRequest.newBuilder().setVersion("v1").build());
        assertEquals("containerd", version.getRuntimeName(), version.toString());
        assertEquals("v1", version.getRuntimeApiVersion(), version.toString());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("handlers")
    void podWithTwoContainersServesOnItsCniAddressAndLeavesNothing(CriContainerd.Handler handler) throws Exception {
        podWithTwoContainers(handler);
    }

    /**
     * The same pod with the VM back end: the sandbox boots the pod VM in the CNI network namespace, both
     * containers run in that one qemu (the sandbox's pid) under one shim, and after removal no qemu,
     * virtiofsd, monitor, pod state or tap is left. Run under `flock /work/vm.lock` on a shared machine.
     */
    @Test
    @Timeout(value = 6, unit = TimeUnit.MINUTES)
    void vmPodWithTwoContainersServesOnItsCniAddressAndLeavesNothing() throws Exception {
        podWithTwoContainers(CriContainerd.Handler.JRUNC_VM);
    }

    private void podWithTwoContainers(CriContainerd.Handler handler) throws Exception {
        handler.require();
        String name = "pod-" + handler.handlerName;
        Path logs = host.work.resolve("logs").resolve(name);
        PodSandboxConfig podConfig = PodSandboxConfig.newBuilder()
                .setMetadata(PodSandboxMetadata.newBuilder().setName(name).setNamespace("jrunc-e2e")
                        .setUid(UUID.randomUUID().toString()))
                .setHostname(name)
                .putAnnotations("io.jrunc.e2e.pod", name)
                .putAnnotations("example.org/e2e", name)
                .setLogDirectory(logs.toString())
                .setLinux(LinuxPodSandboxConfig.newBuilder().setCgroupParent(host.cgroupParent))
                .build();
        String pod = call(CriMethods.RUN_POD_SANDBOX, RunPodSandboxRequest.newBuilder().setConfig(podConfig)
                .setRuntimeHandler(handler.handlerName).build()).getPodSandboxId();

        PodSandboxStatusResponse status = podStatus(pod);
        assertEquals(PodSandboxState.SANDBOX_READY, status.getStatus().getState(), status.toString());
        assertEquals(handler.handlerName, status.getStatus().getRuntimeHandler(), status.toString());
        String ip = status.getStatus().getNetwork().getIp();
        assertTrue(ip.startsWith(host.subnetPrefix + "."), "pod address " + ip + " not in " + host.subnetPrefix + ".0/24");
        Path netns = networkNamespace(status);
        // pod_annotations lets io.jrunc.* through to the runtime (the VM back end reads its settings
        // there) and nothing else.
        JsonNode annotations = JSON.readTree(status.getInfoOrThrow("info")).path("runtimeSpec").path("annotations");
        assertEquals(name, annotations.path("io.jrunc.e2e.pod").asText(), annotations.toString());
        assertTrue(annotations.path("example.org/e2e").isMissingNode(), annotations.toString());
        assertTrue(netns.startsWith(host.netnsDir()), "network namespace " + netns + " not under " + host.netnsDir());
        assertTrue(E2eHost.mountsUnder(netns).contains(netns.toString()), "network namespace not mounted: " + netns);
        assertEquals(1, host.bridgePorts().size(), "one veth on " + host.bridge + ": " + host.bridgePorts());

        String web = startContainer(pod, podConfig, "web", "web.log",
                "mkdir -p /www && echo hello from $(hostname) > /www/index.html && echo serving"
                        + " && exec httpd -f -p " + HTTP_PORT + " -h /www");
        String sidecar = startContainer(pod, podConfig, "sidecar", "sidecar.log",
                "echo sidecar up; trap 'exit 7' TERM; while :; do sleep 1; done");
        for (String id : List.of(web, sidecar)) {
            assertTrue(E2eHost.eventually(30, () -> containerStatus(id).getState() == ContainerState.CONTAINER_RUNNING),
                    "not running: " + containerStatus(id));
        }

        // The pod's CNI address answers from the host, and the other container reaches the server on
        // localhost: both containers are in the sandbox's network namespace.
        String page = "hello from " + name + "\n";
        assertTrue(E2eHost.eventually(30, () -> page.equals(httpGet(ip))), "from the host, http://" + ip + ":"
                + HTTP_PORT + "/ answered " + httpGet(ip) + "\n" + host.logTail());
        ExecSyncResponse local = execSync(sidecar, "wget", "-q", "-O", "-", "http://127.0.0.1:" + HTTP_PORT + "/");
        assertEquals(0, local.getExitCode(), local.toString());
        assertEquals(page, local.getStdout().toStringUtf8());

        ExecSyncResponse exec = execSync(sidecar, "sh", "-c", "echo out; echo err >&2; hostname; exit 3");
        assertEquals(3, exec.getExitCode(), exec.toString());
        assertEquals("out\n" + name + "\n", exec.getStdout().toStringUtf8());
        assertEquals("err\n", exec.getStderr().toStringUtf8());

        ContainerStatsRequest statsOfWeb = ContainerStatsRequest.newBuilder().setContainerId(web).build();
        if (handler.hasStats()) {
            ContainerStats stats = call(CriMethods.CONTAINER_STATS, statsOfWeb).getStats();
            assertEquals(web, stats.getAttributes().getId(), stats.toString());
            assertEquals("web", stats.getAttributes().getMetadata().getName(), stats.toString());
            assertTrue(stats.getMemory().getWorkingSetBytes().getValue() > 0, stats.toString());
            assertTrue(stats.getCpu().getUsageCoreNanoSeconds().getValue() > 0, stats.toString());
        } else {
            // The shim has no cgroup of the task: the CRI plugin gets no metrics for it.
            StatusRuntimeException e = assertThrows(StatusRuntimeException.class,
                    () -> cri.call(CriMethods.CONTAINER_STATS, statsOfWeb));
            assertEquals("UNKNOWN: unexpected metrics response: []", e.getMessage());
            assertTrue(Command.read(host.log()).contains("cannot find cgroup mount destination"), host.logTail());
        }

        assertTrue(Command.read(logs.resolve("web.log")).contains(" stdout F serving\n"),
                "container log: " + Command.read(logs.resolve("web.log")));
        assertTrue(Command.read(logs.resolve("sidecar.log")).contains(" stdout F sidecar up\n"),
                "container log: " + Command.read(logs.resolve("sidecar.log")));

        // One shim serves the whole pod (grouped by the sandbox id), on the socket containerd derives
        // from the sandbox id: both must go with the pod. jrunc's host back end shares one shim among all
        // pods of the namespace (its group is fixed), which stays its linger time after the last.
        boolean shared = handler == CriContainerd.Handler.JRUNC_HOST;
        assertEquals(1, host.shims().size(), "shims of this containerd: " + host.shims());
        Path shimSocket = host.shimSocket(shared ? E2eHost.SHARED_SHIM_MARKER : pod);
        assertTrue(Files.exists(shimSocket), "no shim socket " + shimSocket);
        // A VM pod is one qemu, which must go with the pod.
        List<ProcessHandle> vms = host.shimDescendants("qemu-system");
        assertEquals(handler.vmPerPod ? 1 : 0, vms.size(), "qemu of the pod: " + vms);
        Path keptNetns = host.work.resolve("kept-netns-" + name);
        if (handler.vmPerPod) {
            // The sandbox is the pod VM: its pid is qemu's, and both containers run in that qemu (the
            // containers' exec above saw the pod's hostname; their processes are the guest's, so none of
            // them is a process of this host).
            long sandboxPid = JSON.readTree(status.getInfoOrThrow("info")).path("pid").asLong();
            assertEquals(vms.getFirst().pid(), sandboxPid, "the sandbox's pid is not its qemu's: " + vms);
            assertEquals(Map.of(), E2eHost.processesMentioning("httpd -f -p " + HTTP_PORT), "a container's process on the host");
            assertFalse(E2eHost.processesMentioning(host.vmStateRoot().toString()).isEmpty(),
                    "no monitor, qemu or virtiofsd under the back end's state root " + host.vmStateRoot());
            // The back end's state: one pod, whose guest holds both containers (the sandbox is the pod
            // itself, no container of its own).
            List<Path> vmPods = filesIn(host.vmStateRoot().resolve("pods"));
            assertEquals(1, vmPods.size(), "pods under " + host.vmStateRoot() + ": " + vmPods);
            assertEquals(2, filesIn(vmPods.getFirst().resolve("containers")).size(),
                    "containers of the pod VM: " + filesIn(vmPods.getFirst().resolve("containers")));
            assertEquals(1, tapsIn(netns).size(), "one tap in the pod's network namespace: " + tapsIn(netns));
            // The CRI plugin removes the namespace's file at StopPodSandbox: a bind of it here keeps the
            // namespace, and whatever the pod left in it, in view after the pod's removal.
            Files.createFile(keptNetns);
            Command.Result bind = host.cmd.run(List.of("mount", "--bind", netns.toString(), keptNetns.toString()));
            assertEquals(0, bind.exitCode(), bind.describe());
        }

        // StopContainer sends SIGTERM, whose trap exits 7 well within the grace period: the exit code
        // reaches the CRI plugin. The removed container leaves the pod, which serves on.
        call(CriMethods.STOP_CONTAINER, StopContainerRequest.newBuilder().setContainerId(sidecar).setTimeout(20).build());
        ContainerStatus stopped = containerStatus(sidecar);
        assertEquals(ContainerState.CONTAINER_EXITED, stopped.getState(), stopped.toString());
        assertEquals(7, stopped.getExitCode(), stopped.toString());
        call(CriMethods.REMOVE_CONTAINER, RemoveContainerRequest.newBuilder().setContainerId(sidecar).build());
        assertEquals(List.of(web), containersOf(pod));
        assertEquals(page, httpGet(ip));

        // StopPodSandbox kills what still runs with SIGKILL, with no grace period: httpd exits 137.
        call(CriMethods.STOP_POD_SANDBOX, StopPodSandboxRequest.newBuilder().setPodSandboxId(pod).build());
        assertEquals(PodSandboxState.SANDBOX_NOTREADY, podStatus(pod).getStatus().getState());
        ContainerStatus killed = containerStatus(web);
        assertEquals(ContainerState.CONTAINER_EXITED, killed.getState(), killed.toString());
        assertEquals(137, killed.getExitCode(), killed.toString());
        assertFalse(Files.exists(netns), "network namespace left after StopPodSandbox: " + netns);
        assertEquals(List.of(), host.bridgePorts(), "veth left after StopPodSandbox");
        assertEquals(List.of(), leases(), "IPAM leases left after StopPodSandbox");

        call(CriMethods.REMOVE_POD_SANDBOX, RemovePodSandboxRequest.newBuilder().setPodSandboxId(pod).build());
        assertEquals(0, call(CriMethods.LIST_POD_SANDBOX, ListPodSandboxRequest.getDefaultInstance()).getItemsCount());
        assertEquals(List.of(), containersOf(pod));
        if (shared) {
            // lingering by design (ShimTest sees it end by itself): ended here, its socket with it
            E2eHost.endSharedShims(host.work);
        }
        assertTrue(E2eHost.eventually(15, () -> host.shims().isEmpty()), "shims left: " + host.shims());
        assertTrue(E2eHost.eventually(15, () -> vms.stream().noneMatch(ProcessHandle::isAlive)), "qemu left: " + vms);
        assertFalse(Files.exists(shimSocket), "shim socket left: " + shimSocket);
        if (handler.vmPerPod) {
            try {
                assertEquals(List.of(), tapsIn(keptNetns), "tap left in the pod's network namespace");
            } finally {
                host.cmd.run(List.of("umount", keptNetns.toString()));
                Files.deleteIfExists(keptNetns);
            }
            assertTrue(E2eHost.eventually(15, () -> E2eHost.processesMentioning(host.vmStateRoot().toString()).isEmpty()),
                    "monitor, qemu or virtiofsd left: " + E2eHost.processesMentioning(host.vmStateRoot().toString()));
            assertEquals(List.of(), filesIn(host.vmStateRoot().resolve("pods")), "pod state left");
            assertEquals(List.of(), filesIn(host.vmStateRoot().resolve("shim-bundles")), "rewritten bundles left");
        }
        assertEquals(List.of(), E2eHost.mountsUnder(host.work), "mounts left after RemovePodSandbox");
        assertEquals(List.of(), netnsFiles(), "network namespaces left");
        assertEquals(List.of(), host.cniCacheEntries(), "CNI cache entries left");
        for (String id : List.of(pod, web, sidecar)) {
            assertEquals(List.of(), E2eHost.cgroupDirs(host.cgroupParent + "/" + id), "cgroup of " + id + " left");
        }
        Command.Result tasks = host.cmd.run(host.ctr("task", "ls", "-q"));
        assertEquals("", tasks.out().strip(), tasks.describe());
        Command.Result containers = host.cmd.run(host.ctr("container", "ls", "-q"));
        assertEquals("", containers.out().strip(), containers.describe());
    }

    @Test
    void anUnknownHandlerIsRefusedWithItsNameAndLeavesNothing() {
        PodSandboxConfig podConfig = PodSandboxConfig.newBuilder()
                .setMetadata(PodSandboxMetadata.newBuilder().setName("pod-unknown").setNamespace("jrunc-e2e")
                        .setUid(UUID.randomUUID().toString()))
                .setLogDirectory(host.work.resolve("logs/pod-unknown").toString())
                .setLinux(LinuxPodSandboxConfig.newBuilder().setCgroupParent(host.cgroupParent))
                .build();
        StatusRuntimeException e = assertThrows(StatusRuntimeException.class, () -> cri.call(CriMethods.RUN_POD_SANDBOX,
                RunPodSandboxRequest.newBuilder().setConfig(podConfig).setRuntimeHandler("no-such-handler").build()));
        assertTrue(e.getStatus().getDescription().contains("no-such-handler"), e.toString());
        assertEquals(0, call(CriMethods.LIST_POD_SANDBOX, ListPodSandboxRequest.getDefaultInstance()).getItemsCount());
        assertEquals(List.of(), netnsFiles(), "network namespaces left");
        assertEquals(List.of(), host.bridgePorts(), "veths left");
        assertEquals(Map.of(), host.shims(), "shims left");
    }

    // ---- helpers ------------------------------------------------------------------------------

    /** A CRI call expected to succeed: a failure says what containerd logged. */
    private <Q, R> R call(MethodDescriptor<Q, R> method, Q request) {
        try {
            return cri.call(method, request);
        } catch (StatusRuntimeException e) {
            throw new AssertionError(method.getBareMethodName() + " failed: " + e.getStatus() + "\ncontainerd's log:\n"
                    + host.logTail(), e);
        }
    }

    private String startContainer(String pod, PodSandboxConfig podConfig, String name, String logPath, String script) {
        ContainerConfig config = ContainerConfig.newBuilder()
                .setMetadata(ContainerMetadata.newBuilder().setName(name))
                .setImage(ImageSpec.newBuilder().setImage(E2eHost.IMAGE))
                .addAllCommand(List.of("sh", "-c", script))
                .setLogPath(logPath)
                .build();
        String id = call(CriMethods.CREATE_CONTAINER, CreateContainerRequest.newBuilder().setPodSandboxId(pod)
                .setConfig(config).setSandboxConfig(podConfig).build()).getContainerId();
        assertEquals(ContainerState.CONTAINER_CREATED, containerStatus(id).getState());
        call(CriMethods.START_CONTAINER, StartContainerRequest.newBuilder().setContainerId(id).build());
        return id;
    }

    private List<String> containersOf(String pod) {
        return call(CriMethods.LIST_CONTAINERS, ListContainersRequest.newBuilder()
                .setFilter(ContainerFilter.newBuilder().setPodSandboxId(pod)).build())
                .getContainersList().stream().map(c -> c.getId()).toList();
    }

    private ContainerStatus containerStatus(String id) {
        return call(CriMethods.CONTAINER_STATUS, ContainerStatusRequest.newBuilder().setContainerId(id).build())
                .getStatus();
    }

    private PodSandboxStatusResponse podStatus(String pod) {
        return call(CriMethods.POD_SANDBOX_STATUS,
                PodSandboxStatusRequest.newBuilder().setPodSandboxId(pod).setVerbose(true).build());
    }

    private ExecSyncResponse execSync(String id, String... command) {
        return call(CriMethods.EXEC_SYNC, ExecSyncRequest.newBuilder().setContainerId(id)
                .addAllCmd(List.of(command)).setTimeout(30).build());
    }

    /** The sandbox's network namespace, from the runtime spec in the verbose status. */
    private static Path networkNamespace(PodSandboxStatusResponse status) throws IOException {
        JsonNode info = JSON.readTree(status.getInfoOrThrow("info"));
        for (JsonNode ns : info.path("runtimeSpec").path("linux").path("namespaces")) {
            if (ns.path("type").asText().equals("network")) {
                return Path.of(ns.path("path").asText());
            }
        }
        throw new AssertionError("no network namespace in the sandbox's runtime spec: " + info);
    }

    /** The jrunc-vm taps ("jrtap...") in the network namespace {@code netns} (a mounted namespace file). */
    private List<String> tapsIn(Path netns) {
        Command.Result links = host.cmd.run(List.of("nsenter", "--net=" + netns, "ip", "-o", "link", "show"));
        assertEquals(0, links.exitCode(), links.describe());
        return links.out().lines().map(l -> l.split(":")[1].strip()).filter(n -> n.startsWith("jrtap")).toList();
    }

    private List<Path> netnsFiles() {
        return filesIn(host.netnsDir());
    }

    /** The entries of {@code dir}; none when it does not exist. */
    private static List<Path> filesIn(Path dir) {
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (Stream<Path> files = Files.list(dir)) {
            return files.toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** host-local's lease files (named by address) in the network's IPAM directory. */
    private List<String> leases() {
        Path dir = host.ipamDir().resolve(host.bridge);
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(f -> f.getFileName().toString()).filter(n -> n.startsWith(host.subnetPrefix + ".")).toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The body of GET / at the pod's address, or the exception's text when it does not answer. */
    private static String httpGet(String ip) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(ip, HTTP_PORT), 2000);
            s.setSoTimeout(5000);
            OutputStream out = s.getOutputStream();
            out.write(("GET / HTTP/1.0\r\nHost: " + ip + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = s.getInputStream();
            String response = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            int body = response.indexOf("\r\n\r\n");
            return body < 0 ? response : response.substring(body + 4);
        } catch (IOException e) {
            return e.toString();
        }
    }
}
