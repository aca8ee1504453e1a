package io.jrunc.tests.vm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.jrunc.shim.ProcessExit;
import io.jrunc.shim.TaskEvents;
import io.jrunc.shim.TaskRequests;
import io.jrunc.shim.TaskStatus;
import io.jrunc.shim.vm.VmTaskBackend;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The containerd shim's VM back end ({@link VmTaskBackend}) driven in-process as the task service drives
 * it, with bundles as containerd gives them (config.json and a rootfs directory) and fifos for stdio,
 * on one boot: a CRI sandbox boots the pod, its containers run in the same qemu with their roots
 * shared from bundle/rootfs by virtio-fs; echo through the stdout fifo, exit codes 0, 7 and 137 after
 * SIGKILL, an exec's output and code, each exit reported exactly once; a file written inside on the
 * host, a link to / and `..` kept inside the rootfs; `jrunc-vm run --rootfs-share` into the same pod;
 * and after the last delete no qemu, virtiofsd, monitor or state. Needs what PodShareVmTest needs.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ShimVmBackendTest {
    static final String NS = "shimtest";
    static final String SANDBOX = "sandbox0123456789abcdef0123456789abcdef0123456789abcdef0123456789";
    static final String SECRET = "beside-the-rootfs";

    /** The sandbox's network namespace, as the CRI plugin makes it and CNI configures it (here with ip). */
    static final String NETNS = "jrshimvm";
    static final String VETH = "jrshimvm0";

    static Path work;
    static JruncVm vm;
    static VmTaskBackend backend;
    static final ConcurrentLinkedQueue<String> exits = new ConcurrentLinkedQueue<>();
    static final ConcurrentLinkedQueue<String> ooms = new ConcurrentLinkedQueue<>();

    @BeforeAll
    static void setUp() throws Exception {
        VmHost.requirePods();
        io.jrunc.testsupport.Requirements.require(Files.isExecutable(PodShareVmTest.VIRTIOFSD),
                PodShareVmTest.VIRTIOFSD + ": qemu's virtiofsd (qemu-system-common)");
        io.jrunc.testsupport.Requirements.requireCommands("iproute2", "ip", "tc");
        work = Files.createTempDirectory("jrunc-shim-vm");
        removeNetns();
        PodNetworkVmTest.run("ip", "netns", "add", NETNS);
        PodNetworkVmTest.run("ip", "link", "add", VETH, "type", "veth", "peer", "name", "eth0", "netns", NETNS);
        PodNetworkVmTest.run("ip", "addr", "add", "10.89.7.1/24", "dev", VETH);
        PodNetworkVmTest.run("ip", "link", "set", VETH, "up");
        PodNetworkVmTest.run("ip", "-n", NETNS, "addr", "add", "10.89.7.2/24", "dev", "eth0");
        PodNetworkVmTest.run("ip", "-n", NETNS, "link", "set", "eth0", "up");
        PodNetworkVmTest.run("ip", "-n", NETNS, "route", "add", "default", "via", "10.89.7.1");
        vm = new JruncVm(work);
        TaskEvents events = new TaskEvents() {
            @Override
            public void exited(String id, String execId, ProcessExit exit) {
                exits.add(id + "/" + execId + "=" + exit.status());
            }

            @Override
            public void oom(String id) {
                ooms.add(id);
            }
        };
        // the monitor as jrunc-vm starts it, from build/bin/jrunc-vm, which finds the image by $JRUNC_VM_IMAGE
        io.jrunc.vm.monitor.MonitorLink.Starter starter = (root, pod) -> {
            ProcessBuilder pb = vm.builder("monitor", pod);
            try {
                return pb.redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
                        .redirectOutput(ProcessBuilder.Redirect.appendTo(root.podDir(pod).resolve("monitor.log").toFile()))
                        .redirectErrorStream(true).start();
            } catch (io.jrunc.vm.VmException e) {
                throw new IOException(e.getMessage(), e);
            }
        };
        backend = new VmTaskBackend(events, new VmTaskBackend.Settings(vm.root(), starter, Duration.ofSeconds(300), VmHost.IMAGE));
    }

    @AfterAll
    static void tearDown() throws Exception {
        if (backend != null) {
            backend.close();
        }
        if (work != null && Files.exists(vm.root().resolve("pods"))) {
            for (JsonNode p : JruncVm.JSON.readTree(vm.run("pod", "ls", "--format", "json").out())) {
                vm.run("pod", "rm", "-f", p.path("name").asText());
            }
        }
        removeNetns();
        if (work != null) {
            try (Stream<Path> all = Files.walk(work)) {
                for (Path p : all.sorted(java.util.Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(p);
                }
            }
        }
    }

    static void removeNetns() throws Exception {
        if (Files.exists(Path.of("/run/netns", NETNS))) {
            PodNetworkVmTest.run("ip", "netns", "del", NETNS);
        }
        new ProcessBuilder("ip", "link", "del", VETH).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .start().waitFor();
    }

    /** A bundle as containerd leaves it: config.json (writable root, the CRI annotations) and rootfs. */
    static Path bundle(String id, String type, String... args) throws IOException {
        Path dir = work.resolve("bundles").resolve(id);
        PodVmTest.busyboxBundle(dir);
        for (String applet : List.of("ip", "wget")) {
            Files.createSymbolicLink(dir.resolve("rootfs/bin").resolve(applet), Path.of("busybox"));
        }
        ObjectNode config = (ObjectNode) JruncVm.JSON.readTree(dir.resolve("config.json").toFile());
        config.withObjectProperty("root").put("readonly", false);
        var a = config.withObjectProperty("process").putArray("args");
        Arrays.stream(args).forEach(a::add);
        config.withObjectProperty("annotations").put("io.kubernetes.cri.container-type", type)
                .put("io.kubernetes.cri.sandbox-id", SANDBOX).put("io.jrunc.pod.memory", "256m").put("io.jrunc.pod.swap", "64m");
        JruncVm.JSON.writeValue(dir.resolve("config.json").toFile(), config);
        return dir;
    }

    /**
     * The host binds the CRI plugin adds to a container's spec: the sandbox's /etc/hosts file and
     * /dev/shm directory, and a volume directory at /data (holding in.txt).
     */
    static void criBinds(Path bundle) throws IOException {
        Path sandboxDir = Files.createDirectories(work.resolve("sandbox-files"));
        Path hosts = Files.writeString(sandboxDir.resolve("hosts"), "127.0.0.1 localhost\n");
        Path shm = Files.createDirectories(sandboxDir.resolve("shm"));
        Path volume = Files.createDirectories(work.resolve("volume"));
        Files.writeString(volume.resolve("in.txt"), "from-host\n");
        ObjectNode config = (ObjectNode) JruncVm.JSON.readTree(bundle.resolve("config.json").toFile());
        var mounts = config.withArrayProperty("mounts");
        mounts.addObject().put("destination", "/etc/hosts").put("type", "bind").put("source", hosts.toString())
                .putArray("options").add("rbind").add("rprivate").add("rw");
        mounts.addObject().put("destination", "/dev/shm").put("type", "bind").put("source", shm.toString())
                .putArray("options").add("rbind").add("rprivate").add("rw");
        mounts.addObject().put("destination", "/data").put("type", "bind").put("source", volume.toString())
                .putArray("options").add("rbind").add("rprivate").add("ro");
        JruncVm.JSON.writeValue(bundle.resolve("config.json").toFile(), config);
    }

    static Path fifo(String name) throws Exception {
        Path f = work.resolve("fifos").resolve(name);
        Files.createDirectories(f.getParent());
        Process p = new ProcessBuilder("mkfifo", f.toString()).inheritIO().start();
        assertTrue(p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0, "mkfifo " + f);
        return f;
    }

    /**
     * Reads the fifo to its end on a platform thread of its own (containerd's side of it): its open
     * blocks until the writer's, which would pin a virtual thread's carrier.
     */
    static CompletableFuture<String> reader(Path fifo) {
        return CompletableFuture.supplyAsync(() -> {
            try (InputStream in = Files.newInputStream(fifo)) {
                return new String(in.readAllBytes(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                return "read failed: " + e;
            }
        }, command -> Thread.ofPlatform().daemon().start(command));
    }

    static TaskRequests.Create create(String id, Path bundle, TaskRequests.Stdio stdio) {
        return new TaskRequests.Create(id, bundle, NS, List.of(), stdio, Map.of());
    }

    static final TaskRequests.Stdio NONE = new TaskRequests.Stdio("", "", "", false);

    /** The qemu processes of this test's pods (their command line names a socket under the state root). */
    static List<ProcessHandle> qemus() {
        return processes("qemu-system", vm.root().toString());
    }

    static List<ProcessHandle> processes(String command, String argumentContaining) {
        return ProcessHandle.allProcesses()
                .filter(h -> h.info().command().map(c -> c.contains(command)).orElse(false))
                .filter(h -> h.info().arguments().map(a -> Arrays.stream(a).anyMatch(x -> x.contains(argumentContaining))).orElse(false))
                .filter(PodShareVmTest::notZombie).toList();
    }

    static long count(String exit) {
        return exits.stream().filter(exit::equals).count();
    }

    @Test
    @Order(1)
    void theSandboxBootsThePodAndIsItWithQemusPid() throws Exception {
        Path sb = bundle("sb", "sandbox", "pause");
        ObjectNode config = (ObjectNode) JruncVm.JSON.readTree(sb.resolve("config.json").toFile());
        for (JsonNode ns : config.path("linux").path("namespaces")) {
            if (ns.path("type").asText().equals("network")) {
                ((ObjectNode) ns).put("path", "/run/netns/" + NETNS);
            }
        }
        JruncVm.JSON.writeValue(sb.resolve("config.json").toFile(), config);
        int pid = backend.create(create("sb", sb, NONE));
        assertEquals(1, qemus().size(), "one qemu for the pod");
        assertEquals(qemus().getFirst().pid(), pid, "the sandbox's pid is qemu's");
        assertEquals(pid, backend.start("sb", ""));
        assertEquals(TaskStatus.Phase.RUNNING, backend.state("sb", "").phase());
    }

    @Test
    @Order(2)
    void echoComesThroughTheStdoutFifoAndExitsZeroOnce() throws Exception {
        Path out = fifo("echo-out");
        Path err = fifo("echo-err");
        CompletableFuture<String> stdout = reader(out);
        CompletableFuture<String> stderr = reader(err);
        backend.create(create("echo", bundle("echo", "container", "sh", "-c", "echo hi; echo oops >&2"),
                new TaskRequests.Stdio("", out.toString(), err.toString(), false)));
        assertEquals(TaskStatus.Phase.CREATED, backend.state("echo", "").phase());
        backend.start("echo", "");
        assertEquals(0, backend.await("echo", "").status());
        assertEquals("hi\n", stdout.get(30, TimeUnit.SECONDS));
        assertEquals("oops\n", stderr.get(30, TimeUnit.SECONDS));
        assertEquals(TaskStatus.Phase.STOPPED, backend.state("echo", "").phase());
        assertEquals(0, backend.delete("echo", "").status());
        assertEquals(1, count("echo/=0"), "one exit: " + exits);
    }

    @Test
    @Order(3)
    void theRootIsTheBundlesRootfsWrittenInPlaceAndNothingAboveItIsSeen() throws Exception {
        Path bundle = bundle("writer", "container", "sh", "-c",
                "echo inside > /written.txt; ls /escape/ > /escape-listing.txt; ls /.. > /up-listing.txt;"
                        + " cat /escape/../" + SECRET + " > /secret-read.txt 2>&1; cat /proc/swaps > /swaps.txt; exit 0");
        Files.writeString(bundle.resolve(SECRET), "host secret\n");
        Files.createSymbolicLink(bundle.resolve("rootfs/escape"), Path.of("/"));
        backend.create(create("writer", bundle, NONE));
        backend.start("writer", "");
        assertEquals(0, backend.await("writer", "").status());
        Path rootfs = bundle.resolve("rootfs");
        assertEquals("inside\n", Files.readString(rootfs.resolve("written.txt")), "the write is on the host, in bundle/rootfs");
        List<String> own;
        try (Stream<Path> s = Files.list(rootfs)) {
            own = s.map(p -> p.getFileName().toString()).filter(n -> !n.endsWith("-listing.txt") && !n.equals("secret-read.txt")
                    && !n.equals("swaps.txt")).sorted().toList();
        }
        for (String listing : List.of("escape-listing.txt", "up-listing.txt")) {
            List<String> seen = Files.readString(rootfs.resolve(listing)).lines().filter(n -> !n.endsWith("-listing.txt")
                    && !n.equals("secret-read.txt")).sorted().toList();
            assertEquals(own, seen, listing + ": / through the link and /.. are the rootfs itself");
        }
        assertFalse(Files.readString(rootfs.resolve("secret-read.txt")).contains("host secret"), "the file beside rootfs is not reachable");
        // the sandbox's io.jrunc.pod.swap: 64m is the pod's swap area (64 MiB less the header's page, in KiB)
        List<String> swaps = Files.readString(rootfs.resolve("swaps.txt")).lines().skip(1).toList();
        assertEquals(1, swaps.size(), swaps.toString());
        assertEquals("65532", swaps.getFirst().trim().split("\\s+")[2], swaps.toString());
        assertEquals(0, backend.delete("writer", "").status());
        assertTrue(Files.exists(rootfs.resolve("written.txt")), "the writes stay in the bundle's rootfs after delete");
    }

    @Test
    @Order(4)
    void anExitCodeAndSigkillAreReportedOnceEach() throws Exception {
        backend.create(create("seven", bundle("seven", "container", "sh", "-c", "exit 7"), NONE));
        backend.create(create("sleeper", bundle("sleeper", "container", "sleep", "1000"), NONE));
        backend.start("seven", "");
        backend.start("sleeper", "");
        assertEquals(7, backend.await("seven", "").status());
        assertEquals(TaskStatus.Phase.RUNNING, backend.state("sleeper", "").phase());
        backend.kill("sleeper", "", 9, false);
        assertEquals(137, backend.await("sleeper", "").status());
        assertEquals(7, backend.delete("seven", "").status());
        assertEquals(137, backend.delete("sleeper", "").status());
        assertEquals(1, count("seven/=7"), "one exit: " + exits);
        assertEquals(1, count("sleeper/=137"), "one exit: " + exits);
    }

    @Test
    @Order(5)
    void twoContainersAndAnExecRunInTheOneQemu() throws Exception {
        // a shell that handles TERM: a PID 1 without a handler ignores it, in a VM as under runc
        String termed = "trap 'exit 143' TERM; while true; do sleep 1; done";
        backend.create(create("a", bundle("a", "container", "sh", "-c", termed), NONE));
        Path b = bundle("b", "container", "sh", "-c", termed);
        criBinds(b);
        backend.create(create("b", b, NONE));
        backend.start("a", "");
        backend.start("b", "");
        assertEquals(TaskStatus.Phase.RUNNING, backend.state("a", "").phase());
        assertEquals(TaskStatus.Phase.RUNNING, backend.state("b", "").phase());
        assertEquals(1, qemus().size(), "both containers and the sandbox in one qemu");
        backend.update("a", "{\"memory\": {\"limit\": 33554432}}".getBytes(StandardCharsets.UTF_8));

        // the sandbox's network namespace is the pod's: its address inside, its far end reached from it
        com.sun.net.httpserver.HttpServer server = com.sun.net.httpserver.HttpServer.create(
                new java.net.InetSocketAddress("10.89.7.1", 0), 0);
        server.createContext("/token", x -> {
            byte[] body = "through-the-netns\n".getBytes(StandardCharsets.UTF_8);
            x.sendResponseHeaders(200, body.length);
            x.getResponseBody().write(body);
            x.close();
        });
        server.start();
        try {
            Path netOut = fifo("net-out");
            CompletableFuture<String> net = reader(netOut);
            backend.exec(new TaskRequests.Exec("a", "net", new TaskRequests.Stdio("", netOut.toString(), "", false),
                    ("{\"args\": [\"sh\", \"-c\", \"ip -o -4 addr show eth0; wget -q -O - http://10.89.7.1:"
                            + server.getAddress().getPort() + "/token\"], \"env\": [\"PATH=/bin\"], \"cwd\": \"/\"}")
                            .getBytes(StandardCharsets.UTF_8)));
            backend.start("a", "net");
            assertEquals(0, backend.await("a", "net").status());
            String printed = net.get(30, TimeUnit.SECONDS);
            assertTrue(printed.contains("inet 10.89.7.2/24") && printed.endsWith("through-the-netns\n"), printed);
            backend.delete("a", "net");
        } finally {
            server.stop(0);
        }
        assertEquals(32L << 20, backend.stats("a").memoryLimitBytes(), "Update's limit read back from the guest's cgroup");

        Path out = fifo("exec-out");
        CompletableFuture<String> stdout = reader(out);
        backend.exec(new TaskRequests.Exec("b", "e1", new TaskRequests.Stdio("", out.toString(), "", false),
                """
                {"args": ["sh", "-c", "echo exec-out; cat /data/in.txt; exit 3"], "env": ["PATH=/bin"], "cwd": "/",
                 "user": {"uid": 0, "gid": 0}}
                """.getBytes(StandardCharsets.UTF_8)));
        assertEquals(TaskStatus.Phase.CREATED, backend.state("b", "e1").phase());
        assertTrue(backend.start("b", "e1") > 0);
        assertEquals(3, backend.await("b", "e1").status());
        assertEquals("exec-out\nfrom-host\n", stdout.get(30, TimeUnit.SECONDS), "the host directory bound at /data is shared");
        assertEquals(3, backend.delete("b", "e1").status());
        assertEquals(1, count("b/e1=3"), "one exit: " + exits);

        // an exec with a terminal of the size its process asks for, then resized (ResizePty)
        Path tty = fifo("exec-tty");
        java.util.concurrent.CountDownLatch firstLine = new java.util.concurrent.CountDownLatch(1);
        CompletableFuture<String> ttyOut = CompletableFuture.supplyAsync(() -> {
            StringBuilder text = new StringBuilder();
            try (InputStream in = Files.newInputStream(tty)) {
                for (int c; (c = in.read()) >= 0; ) {
                    text.append((char) c);
                    if (c == '\n') {
                        firstLine.countDown();
                    }
                }
            } catch (IOException e) {
                text.append("read failed: ").append(e);
            }
            return text.toString();
        }, command -> Thread.ofPlatform().daemon().start(command));
        backend.exec(new TaskRequests.Exec("b", "e2", new TaskRequests.Stdio("", tty.toString(), "", true),
                """
                {"args": ["sh", "-c", "stty size; sleep 2; stty size"], "env": ["PATH=/bin"], "cwd": "/", "terminal": true,
                 "consoleSize": {"height": 30, "width": 100}, "user": {"uid": 0, "gid": 0}}
                """.getBytes(StandardCharsets.UTF_8)));
        backend.start("b", "e2");
        assertTrue(firstLine.await(30, TimeUnit.SECONDS), "the first size printed");
        backend.resizePty("b", "e2", 121, 41);
        assertEquals(0, backend.await("b", "e2").status());
        assertEquals("30 100\r\n41 121\r\n", ttyOut.get(30, TimeUnit.SECONDS));
        assertEquals(0, backend.delete("b", "e2").status());

        for (String id : List.of("a", "b")) {
            backend.kill(id, "", 15, false);
            assertEquals(143, backend.await(id, "").status());
            assertEquals(143, backend.delete(id, "").status());
            assertEquals(1, count(id + "/=143"), "one exit: " + exits);
        }
    }

    @Test
    @Order(5)
    void stdinComesThroughItsFifoAndItsEndIsTheProcesssEndOfFile() throws Exception {
        Path in = fifo("cat-in");
        Path out = fifo("cat-out");
        CompletableFuture<String> stdout = reader(out);
        backend.create(create("cat", bundle("cat", "container", "sh", "-c", "cat; echo after-eof"),
                new TaskRequests.Stdio(in.toString(), out.toString(), "", false)));
        backend.start("cat", "");
        try (var writer = Files.newOutputStream(in)) { // containerd's end: opened, written, closed
            writer.write("hello\n".getBytes(StandardCharsets.UTF_8));
        }
        assertEquals(0, backend.await("cat", "").status());
        assertEquals("hello\nafter-eof\n", stdout.get(30, TimeUnit.SECONDS));
        assertEquals(0, backend.delete("cat", "").status());
    }

    @Test
    @Order(5)
    void aContainerOverItsMemoryLimitIsReportedOomBeforeItsExit() throws Exception {
        Path bundle = bundle("hog", "container", "sh", "-c", "x=$(yes | head -c 67108864); echo survived");
        ObjectNode config = (ObjectNode) JruncVm.JSON.readTree(bundle.resolve("config.json").toFile());
        // the CRI plugin's resources as config.json carries them: the memory limit and the memory+swap
        // total (CRI's memory_swap_limit_in_bytes), 8 MiB of the pod's 64 MiB swap area for this one.
        // Kept small: the hog's growing buffer is copied on every resize, so each MiB of swap it may use
        // is written out and read back many times: with 32 MiB the OOM kill came after 20 to 100 s
        // under software emulation, varying with the host's disk.
        config.withObjectProperty("linux").withObjectProperty("resources").withObjectProperty("memory")
                .put("limit", 16L << 20).put("swap", 24L << 20);
        JruncVm.JSON.writeValue(bundle.resolve("config.json").toFile(), config);
        backend.create(create("hog", bundle, NONE));
        assertEquals(16L << 20, backend.stats("hog").memoryLimitBytes(), "the limit read back in the guest's cgroup");
        assertEquals(8L << 20, backend.stats("hog").swapLimitBytes(), "memory.swap.max in the guest: the total less the limit");
        backend.start("hog", "");
        assertEquals(137, backend.await("hog", "").status(), "killed by the OOM killer");
        assertTrue(backend.stats("hog").oomKills() > 0);
        assertEquals(List.of("hog"), List.copyOf(ooms), "oom reported once");
        assertEquals(1, count("hog/=137"), "one exit: " + exits);
        assertEquals(137, backend.delete("hog", "").status());
    }

    @Test
    @Order(6)
    void jruncVmRunsARootfsShareInTheSamePod() throws Exception {
        JsonNode pods = JruncVm.JSON.readTree(vm.ok("pod", "ls", "--format", "json").out());
        assertEquals(1, pods.size(), pods.toString());
        String pod = pods.get(0).path("name").asText();
        Path bundle = bundle("cli", "container", "sh", "-c", "echo from-cli > /cli.txt; echo done");
        JruncVm.Result run = vm.ok("run", "--pod", pod, "--rm", "--rootfs-share", bundle.toString());
        assertEquals("done\n", run.out(), run.all());
        assertEquals("from-cli\n", Files.readString(bundle.resolve("rootfs/cli.txt")));
        assertEquals(1, qemus().size());
    }

    @Test
    @Order(7)
    void theLastDeleteEndsThePodAndLeavesNothing() throws Exception {
        assertFalse(backend.empty());
        backend.kill("sb", "", 9, false);
        assertEquals(137, backend.await("sb", "").status());
        assertEquals(137, backend.delete("sb", "").status());
        assertEquals(1, count("sb/=137"), "one exit: " + exits);
        assertTrue(backend.empty());
        assertEquals(List.of(), qemus(), "no qemu");
        assertEquals(List.of(), processes("virtiofsd", vm.root().toString()), "no virtiofsd");
        assertEquals(List.of(), processes("java", vm.root().toString()), "no monitor");
        String links = PodNetworkVmTest.run("ip", "-n", NETNS, "-o", "link");
        assertFalse(links.contains("jrtap"), "no tap left in the namespace: " + links);
        assertTrue(PodNetworkVmTest.run("ip", "-n", NETNS, "-o", "-4", "addr", "show", "eth0").contains("10.89.7.2/24"),
                "the namespace is the CRI plugin's, left as it was");
        try (Stream<Path> left = Files.list(vm.root().resolve("pods"))) {
            assertEquals(List.of(), left.toList(), "no pod state");
        }
        assertEquals(List.of("hog"), List.copyOf(ooms), "the hog's alone");
    }
}
