package io.jrunc.tests.vm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpServer;
import io.jrunc.testsupport.Requirements;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The pod's network in a real VM, through build/bin/jrunc-vm: a published port reaching busybox httpd
 * in a container, a container reaching a server of the test's on the host through the user-mode
 * gateway, the pod's resolver, hosts file and hostname in two containers, the interface the agent
 * configured through netlink (address, route, MTU, the recorded MAC), a host port in use refused,
 * the address and MAC kept over `pod stop`/`pod start`; `--network none` (lo alone); and `--network
 * ns:PATH` with a namespace and veth pair made by `ip` as a CNI plugin makes them. Four boots: the
 * pod, its restart, the none pod, the ns pod.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class PodNetworkVmTest {
    static final String POD = "netpod";
    static Path work;
    static Path bundle;
    static JruncVm vm;
    static int webPort;
    static HttpServer hostServer;
    static final String TOKEN = UUID.randomUUID().toString();
    static final String NS = "jrunc-cni-" + ProcessHandle.current().pid();
    static final String VETH = "vh" + ProcessHandle.current().pid();

    @BeforeAll
    static void setUp() throws IOException {
        VmHost.requirePods();
        work = Files.createTempDirectory("jrunc-vm-net");
        vm = new JruncVm(work);
        bundle = PodVmTest.busyboxBundle(work.resolve("bundle"));
        Path rootfs = bundle.resolve("rootfs");
        for (String applet : List.of("httpd", "wget", "ip")) {
            Files.createSymbolicLink(rootfs.resolve("bin").resolve(applet), Path.of("busybox"));
        }
        Files.writeString(Files.createDirectories(rootfs.resolve("www")).resolve("index.html"), "hello-from-pod\n");
        webPort = freePort();
        // the server a container reaches through the gateway: slirp's 10.0.2.2 is the host's loopback
        hostServer = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        hostServer.createContext("/token", x -> {
            byte[] body = TOKEN.getBytes(StandardCharsets.UTF_8);
            x.sendResponseHeaders(200, body.length);
            x.getResponseBody().write(body);
            x.close();
        });
        hostServer.start();
    }

    @AfterAll
    static void tearDown() throws Exception {
        if (hostServer != null) {
            hostServer.stop(0);
        }
        if (vm != null && Files.exists(vm.root())) {
            for (JsonNode p : JruncVm.JSON.readTree(vm.run("pod", "ls", "--format", "json").out())) {
                vm.run("pod", "rm", "-f", p.path("name").asText());
            }
        }
        if (Files.exists(Path.of("/run/netns", NS))) {
            run("ip", "netns", "del", NS);
        }
        new ProcessBuilder("ip", "link", "del", VETH).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .start().waitFor();
        if (work != null) {
            io.jrunc.bindings.FileTrees.delete(work); // the bundles, the calls' output files, the state root
        }
    }

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    /** GET through the published port, retried while httpd starts (up to 30 s). */
    static HttpResponse<String> get(int port) throws Exception {
        HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/index.html"))
                .timeout(Duration.ofSeconds(20)).build();
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (true) {
            try {
                HttpResponse<String> r = client.send(request, HttpResponse.BodyHandlers.ofString());
                if (r.statusCode() == 200 || System.nanoTime() > deadline) {
                    return r;
                }
            } catch (IOException e) {
                if (System.nanoTime() > deadline) {
                    throw e;
                }
            }
            Thread.sleep(500);
        }
    }

    @Test
    @Order(1)
    void aPublishedPortReachesBusyboxHttpdInAContainer() throws Exception {
        vm.ok("pod", "create", "--name", POD, "--memory", "256m", "-p", webPort + ":80", "--hostname", "webhost",
                "--dns-search", "example.org", "--dns-option", "ndots:2", "--add-host", "db:10.1.2.3");
        vm.ok("create", "--pod", POD, "--name", "web", bundle.toString(), "httpd", "-f", "-p", "80", "-h", "/www");
        vm.ok("start", "web");
        vm.ok("create", "--pod", POD, "--name", "client", bundle.toString(), "sleep", "100000");
        vm.ok("start", "client");
        HttpResponse<String> r = get(webPort);
        assertEquals(200, r.statusCode(), r.body());
        assertEquals("hello-from-pod\n", r.body());
    }

    @Test
    @Order(2)
    void aContainerReachesAServerOnTheHostThroughTheGateway() throws Exception {
        int port = hostServer.getAddress().getPort();
        assertEquals(TOKEN, vm.ok("exec", "client", "wget", "-q", "-O", "-", "http://10.0.2.2:" + port + "/token").out());
    }

    @Test
    @Order(3)
    void everyContainerHasThePodsHostnameHostsAndResolverAndTheInterfaceTheAgentConfigured() throws Exception {
        List<String> files = podFiles("web");
        assertEquals("nameserver 10.0.2.3\nsearch example.org\noptions ndots:2\n", files.get(0), "the network's resolver");
        assertEquals("127.0.0.1 localhost\n::1 localhost\n10.0.2.15 webhost netpod\n10.1.2.3 db\n", files.get(1));
        assertEquals("webhost\n", files.get(2));
        assertEquals(files, podFiles("client"));
        // an image without /etc gets them at those paths all the same
        Path noEtc = PodVmTest.busyboxBundle(work.resolve("no-etc"));
        Files.delete(noEtc.resolve("rootfs/etc"));
        assertEquals(files.get(0) + files.get(1) + files.get(2), vm.ok("run", "--pod", POD, "--rm", noEtc.toString(),
                "cat", "/etc/resolv.conf", "/etc/hosts", "/etc/hostname").out());

        String mac = vm.json("pod", "inspect", POD).path("network").path("mac").asText();
        assertTrue(mac.matches("52:54:00(:[0-9a-f]{2}){3}"), mac);
        assertEquals(List.of("lo", "eth0"), linkNames("client"));
        String eth0 = vm.ok("exec", "client", "ip", "-o", "link", "show", "eth0").out();
        assertTrue(eth0.contains("mtu 1500") && eth0.contains("UP") && eth0.contains("link/ether " + mac), eth0);
        assertTrue(vm.ok("exec", "client", "ip", "-o", "-4", "addr", "show", "eth0").out().contains("inet 10.0.2.15/24"));
        assertTrue(vm.ok("exec", "client", "ip", "-o", "link", "show", "lo").out().contains("UP"));
        assertTrue(vm.ok("exec", "client", "ip", "route").out().lines().anyMatch(l -> l.strip().equals("default via 10.0.2.2 dev eth0")));
    }

    static List<String> linkNames(String container) throws Exception {
        return vm.ok("exec", container, "ip", "-o", "link").out().lines()
                .map(l -> l.split(":\\s+")[1].replaceAll("@.*", "")).toList();
    }

    @Test
    @Order(4)
    void aHostPortInUseIsRefusedWithThePortAndNothingLeft() throws Exception {
        // taken by the running pod's qemu
        JruncVm.Result second = vm.run("pod", "create", "--name", "other", "-p", webPort + ":80");
        assertEquals(125, second.code(), second.all());
        assertEquals(1, second.err().lines().count(), second.err());
        assertTrue(second.err().contains("host port " + webPort + "/tcp is already in use"), second.err());
        assertFalse(Files.exists(vm.root().resolve("pods/other")));
        JruncVm.Result anonymous = vm.run("run", "--rm", "-p", webPort + ":80", bundle.toString(), "true");
        assertEquals(125, anonymous.code(), anonymous.all());
        assertTrue(anonymous.err().contains("host port " + webPort), anonymous.err());
        assertEquals(1, vm.json("pod", "ls", "--format", "json").size(), "no anonymous pod left");

        // free at create, taken before the boot: the boot is refused naming it, and leaves no qemu
        int late = freePort();
        vm.ok("pod", "create", "--name", "late", "--swap", "16m", "-p", late + ":80");
        try (ServerSocket taken = new ServerSocket(late)) {
            JruncVm.Result start = vm.run("pod", "start", "late");
            assertEquals(125, start.code(), start.all());
            assertTrue(start.err().contains("host port " + late + "/tcp is already in use"), start.err());
        }
        assertEquals("created", podState("late"));
        assertFalse(Files.exists(vm.root().resolve("pods/late/swap.img")), "no swap area left");
        vm.ok("pod", "rm", "late");
    }

    static String podState(String name) throws Exception {
        for (JsonNode p : vm.json("pod", "ls", "--format", "json")) {
            if (p.path("name").asText().equals(name)) {
                return p.path("state").asText();
            }
        }
        return null;
    }

    @Test
    @Order(5)
    void theAddressAndMacAreKeptAcrossPodStopAndStart() throws Exception {
        JsonNode before = vm.json("pod", "inspect", POD).path("network");
        String link = vm.ok("exec", "client", "ip", "-o", "link", "show", "eth0").out().replaceAll(".*link/ether (\\S+).*\\s*", "$1");
        vm.ok("pod", "stop", POD);
        vm.ok("pod", "start", POD);
        assertEquals(before, vm.json("pod", "inspect", POD).path("network"));
        assertEquals(link, vm.ok("exec", "client", "ip", "-o", "link", "show", "eth0").out().replaceAll(".*link/ether (\\S+).*\\s*", "$1"));
        assertTrue(vm.ok("exec", "client", "ip", "-o", "-4", "addr", "show", "eth0").out().contains("inet 10.0.2.15/24"));
        HttpResponse<String> r = get(webPort);
        assertEquals("hello-from-pod\n", r.body(), "the published port again after the boot");
        vm.ok("pod", "rm", "-f", POD);
    }

    @Test
    @Order(6)
    void networkNoneGivesOnlyLo() throws Exception {
        String out = vm.ok("run", "--rm", "--network", "none", bundle.toString(), "sh", "-c",
                "ip -o link; echo --; cat /etc/resolv.conf; echo --; cat /etc/hosts").out();
        String[] parts = out.split("--\n", -1);
        List<String> links = parts[0].lines().map(l -> l.split(":\\s+")[1]).toList();
        assertEquals(List.of("lo"), links, out);
        assertTrue(parts[0].contains("UP"), "lo is up: " + out);
        assertEquals("", parts[1], "no resolver without a network");
        assertEquals("127.0.0.1 localhost\n::1 localhost\n", parts[2]);
    }

    @Test
    @Order(7)
    void aPodJoinsANetworkNamespaceAndReachesTheFarEnd() throws Exception {
        Requirements.requireRoot("network namespaces and veth pairs");
        Requirements.requireCommands("iproute2", "ip", "tc");
        // as a CNI plugin makes it: a namespace, a veth pair with one end inside, addresses and a route
        run("ip", "netns", "add", NS);
        run("ip", "link", "add", VETH, "type", "veth", "peer", "name", "eth0", "netns", NS);
        run("ip", "addr", "add", "10.89.0.1/24", "dev", VETH);
        run("ip", "link", "set", VETH, "up");
        run("ip", "-n", NS, "addr", "add", "10.89.0.2/24", "dev", "eth0");
        run("ip", "-n", NS, "link", "set", "eth0", "up", "mtu", "1400");
        run("ip", "-n", NS, "route", "add", "default", "via", "10.89.0.1");
        String mac = run("ip", "-n", NS, "-o", "link", "show", "eth0").replaceAll("(?s).*link/ether (\\S+).*", "$1").strip();
        HttpServer farEnd = HttpServer.create(new InetSocketAddress(InetAddress.ofLiteral("10.89.0.1"), 0), 0);
        farEnd.createContext("/token", x -> {
            byte[] body = ("far-" + TOKEN).getBytes(StandardCharsets.UTF_8);
            x.sendResponseHeaders(200, body.length);
            x.getResponseBody().write(body);
            x.close();
        });
        farEnd.start();
        try {
            vm.ok("pod", "create", "--name", "nspod", "--network", "ns:/run/netns/" + NS, "--dns", "10.89.0.1");
            String out = vm.ok("run", "--pod", "nspod", "--name", "nsc", bundle.toString(), "sh", "-c",
                    "ip -o link show eth0; ip -o -4 addr show eth0; ip route; echo --; cat /etc/hosts; echo --;"
                            + " wget -q -O - http://10.89.0.1:" + farEnd.getAddress().getPort() + "/token").out();
            String[] parts = out.split("--\n", -1);
            assertTrue(parts[0].contains("link/ether " + mac) && parts[0].contains("mtu 1400"), "the interface's MAC and MTU: " + out);
            assertTrue(parts[0].contains("inet 10.89.0.2/24"), out);
            assertTrue(parts[0].lines().anyMatch(l -> l.strip().equals("default via 10.89.0.1 dev eth0")), out);
            assertTrue(parts[1].contains("10.89.0.2 nspod"), parts[1]);
            assertEquals("far-" + TOKEN, parts[2], "the far end answered through the tap and the veth");
            String filters = run("tc", "-n", NS, "filter", "show", "dev", "eth0", "ingress");
            assertTrue(filters.contains("u32") && filters.contains("Redirect to device jrtap"), filters);
            vm.ok("pod", "rm", "-f", "nspod");
        } finally {
            farEnd.stop(0);
        }
        assertFalse(run("ip", "-n", NS, "-o", "link").contains("jrtap"), "no tap left");
        assertFalse(run("tc", "-n", NS, "qdisc", "show", "dev", "eth0").contains("ingress"), "no qdisc left");
        assertTrue(run("ip", "-n", NS, "-o", "-4", "addr", "show", "eth0").contains("10.89.0.2/24"), "the namespace is as it was");
    }

    static String run(String... command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (p.waitFor() != 0) {
            throw new AssertionError(String.join(" ", command) + " exited " + p.exitValue() + ": " + out);
        }
        return out;
    }

    /** The pod's files as a container reads them (resolv.conf, hosts, hostname), in one exec. */
    static List<String> podFiles(String container) throws Exception {
        String out = vm.ok("exec", container, "sh", "-c", "cat /etc/resolv.conf; echo --; cat /etc/hosts; echo --; cat /etc/hostname").out();
        return List.of(out.split("--\n", -1));
    }
}
