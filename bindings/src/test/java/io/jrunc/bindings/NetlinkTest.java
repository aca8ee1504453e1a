package io.jrunc.bindings;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrunc.testsupport.Requirements;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.Callable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * rtnetlink and taps against the running kernel, in network namespaces of the test's own: one made by
 * {@code ip netns add} with a veth pair (as a CNI plugin makes them), entered by a dedicated platform
 * thread with setns(2), and one made by unshare(CLONE_NEWNET) on such a thread. What the facade did is
 * read back with {@code ip} and {@code tc}, and what {@code ip} made is read with the facade.
 */
class NetlinkTest {
    private final String ns = "jrunc-nltest-" + ProcessHandle.current().pid();

    @BeforeAll
    static void requirements() {
        Requirements.requireRoot("network namespaces");
        Requirements.requireCommands("iproute2 busybox-static", "ip", "tc", "busybox");
    }

    @BeforeEach
    void namespace() throws Exception {
        run("ip", "netns", "add", ns);
        run("ip", "-n", ns, "link", "add", "v0", "type", "veth", "peer", "name", "v1");
    }

    @AfterEach
    void removeNamespace() throws Exception {
        run("ip", "netns", "del", ns);
    }

    @Test
    void configuresLinksAddressesAndRoutesOfANamespace() throws Exception {
        String mac = run("ip", "-n", ns, "-o", "link", "show", "v0").replaceAll("(?s).*link/ether (\\S+).*", "$1").strip();
        inNamespace(() -> {
            try (Rtnetlink rt = Rtnetlink.open()) {
                List<Rtnetlink.Link> links = rt.links();
                assertEquals(List.of("lo", "v0", "v1"), links.stream().map(Rtnetlink.Link::name).sorted().toList());
                Rtnetlink.Link v0 = rt.link("v0");
                assertEquals(mac, v0.mac());
                assertFalse(v0.up());
                assertTrue(rt.link("lo").loopback());
                rt.setUp(rt.link("lo").index(), true);
                rt.setMtu(v0.index(), 1400);
                rt.setUp(v0.index(), true);
                rt.setUp(rt.link("v1").index(), true);
                rt.addAddress(v0.index(), InetAddress.ofLiteral("10.77.0.2"), 24);
                rt.addAddress(rt.link("v1").index(), InetAddress.ofLiteral("10.77.0.1"), 24);
                rt.addRoute(null, 0, InetAddress.ofLiteral("10.77.0.1"), v0.index());
                ErrnoException again = assertThrows(ErrnoException.class,
                        () -> rt.addAddress(v0.index(), InetAddress.ofLiteral("10.77.0.2"), 24));
                assertEquals(Errno.EEXIST, again.errno());
                assertTrue(again.getMessage().contains("10.77.0.2/24"), again.getMessage());
                assertEquals(Errno.ENODEV, assertThrows(ErrnoException.class, () -> rt.link("nosuch0")).errno());
                assertEquals(Errno.ENODEV, assertThrows(ErrnoException.class, () -> rt.setUp(99999, true)).errno());

                assertTrue(rt.link("v0").up());
                assertEquals(1400, rt.link("v0").mtu());
                assertTrue(rt.addresses().stream().anyMatch(a -> a.index() == v0.index() && a.toString().equals("10.77.0.2/24")),
                        rt.addresses().toString());
                assertTrue(rt.routes().stream().anyMatch(r -> r.isDefault() && r.gateway() != null
                        && r.gateway().getHostAddress().equals("10.77.0.1") && r.index() == v0.index()), rt.routes().toString());
            }
            return null;
        });
        String link = run("ip", "-n", ns, "-o", "link", "show", "v0");
        assertTrue(link.contains("mtu 1400") && link.contains(",UP"), link);
        assertTrue(run("ip", "-n", ns, "-o", "-4", "addr", "show", "v0").contains("inet 10.77.0.2/24"));
        assertTrue(run("ip", "-n", ns, "-o", "link", "show", "lo").contains(",UP"));
        assertEquals("default via 10.77.0.1 dev v0", run("ip", "-n", ns, "route", "show", "default").strip());
        // the two ends answer each other: the kernel took the configuration as given
        assertTrue(run("ip", "netns", "exec", ns, "busybox", "ping", "-c", "1", "-W", "5", "10.77.0.1").contains("1 packets received"));
    }

    @Test
    void joinsATapToAnInterfaceWithRedirectsBothWaysAndRemovesThem() throws Exception {
        inNamespace(() -> {
            try (Rtnetlink rt = Rtnetlink.open()) {
                Tap.createPersistent("jtap0");
                int tap = rt.link("jtap0").index();
                int v0 = rt.link("v0").index();
                rt.addIngressQdisc(v0);
                rt.addIngressQdisc(tap);
                rt.redirectIngress(v0, tap);
                rt.redirectIngress(tap, v0);
            }
            return null;
        });
        String fromV0 = run("tc", "-n", ns, "filter", "show", "dev", "v0", "ingress");
        assertTrue(fromV0.contains("u32") && fromV0.contains("Redirect to device jtap0"), fromV0);
        String fromTap = run("tc", "-n", ns, "filter", "show", "dev", "jtap0", "ingress");
        assertTrue(fromTap.contains("u32") && fromTap.contains("Redirect to device v0"), fromTap);
        inNamespace(() -> {
            try (Rtnetlink rt = Rtnetlink.open()) {
                rt.deleteIngressQdisc(rt.link("v0").index());
                rt.deleteLink(rt.link("jtap0").index());
            }
            return null;
        });
        assertFalse(run("ip", "-n", ns, "-o", "link").contains("jtap0"));
        assertFalse(run("tc", "-n", ns, "qdisc", "show", "dev", "v0").contains("ingress"));
    }

    @Test
    void aNewNamespaceHasOnlyLoopbackDown() throws Exception {
        List<Rtnetlink.Link> links = onThread(() -> {
            Namespaces.unshare(Namespaces.CLONE_NEWNET);
            try (Rtnetlink rt = Rtnetlink.open()) {
                return rt.links();
            }
        });
        assertEquals(1, links.size(), links.toString());
        assertEquals("lo", links.getFirst().name());
        assertFalse(links.getFirst().up());
    }

    private <T> T inNamespace(Callable<T> body) throws Exception {
        return onThread(() -> {
            int fd = FileDescriptors.open("/run/netns/" + ns, FileDescriptors.O_RDONLY | FileDescriptors.O_CLOEXEC);
            try {
                Namespaces.setns(fd, Namespaces.CLONE_NEWNET, ns);
            } finally {
                FileDescriptors.close(fd);
            }
            return body.call();
        });
    }

    private static String run(String... command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (p.waitFor() != 0) {
            throw new AssertionError(String.join(" ", command) + " exited " + p.exitValue() + ": " + out);
        }
        return out;
    }

    private static <T> T onThread(Callable<T> body) throws Exception {
        return TestThreads.onThread("netlink-test", body);
    }
}
