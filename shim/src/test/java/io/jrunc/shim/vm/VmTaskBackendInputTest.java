package io.jrunc.shim.vm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrunc.agent.api.pb.v1.ProcessSpec;
import io.jrunc.shim.ProcessExit;
import io.jrunc.shim.TaskEvents;
import io.jrunc.shim.TaskRequests;
import io.jrunc.ttrpc.Code;
import io.jrunc.ttrpc.RpcException;
import io.jrunc.vm.Names;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The VM back end's reading of what containerd gives it, without a VM: the CRI annotations and the
 * pod's settings, containerd's ids turned into jrunc-vm names, an exec's OCI process, and bad input
 * refused with the code containerd maps, naming the culprit, nothing made (no monitor is ever started).
 */
class VmTaskBackendInputTest {
    @TempDir
    Path dir;

    private Path bundle(String config) throws Exception {
        Path b = Files.createDirectories(dir.resolve("bundle"));
        Files.createDirectories(b.resolve("rootfs"));
        Files.writeString(b.resolve("config.json"), config);
        return b;
    }

    @Test
    void theCriAnnotationsAndThePodsSettingsAreRead() throws Exception {
        PodPlan sandbox = PodPlan.read("s1", bundle("""
                {"hostname": "web-0", "annotations": {"io.kubernetes.cri.container-type": "sandbox",
                 "io.kubernetes.cri.sandbox-id": "s1", "io.jrunc.pod.swap": "1g", "io.jrunc.pod.memory": "512m",
                 "io.jrunc.pod.cpus": "2"},
                 "linux": {"namespaces": [{"type": "pid"}, {"type": "network", "path": "/var/run/netns/cni-1"}]}}
                """));
        assertEquals(new PodPlan("s1", PodPlan.Membership.SANDBOX, 2, 512L << 20, 1L << 30, "web-0", Path.of("/var/run/netns/cni-1")), sandbox);

        PodPlan member = PodPlan.read("c1", bundle("""
                {"annotations": {"io.kubernetes.cri.container-type": "container", "io.kubernetes.cri.sandbox-id": "s1"}}
                """));
        assertEquals("s1", member.sandboxKey());
        assertFalse(member.sandbox());
        assertEquals(PodPlan.Membership.MEMBER, member.membership());

        PodPlan grouped = PodPlan.read("g1c", bundle("""
                {"annotations": {"io.containerd.runc.v2.group": "g1", "io.jrunc.pod.memory": "300m"}}
                """));
        assertEquals(new PodPlan("g1", PodPlan.Membership.GROUP, 0, 300L << 20, 0, null, null), grouped,
                "a containerd group's container: the group's pod, its settings from whichever boots it");

        PodPlan plain = PodPlan.read("ctr1", bundle("""
                {"hostname": "not a name!", "linux": {"namespaces": [{"type": "network"}]}}
                """));
        assertEquals(new PodPlan("ctr1", PodPlan.Membership.OWN, 0, 0, 0, null, null), plain, "ctr run: a pod of its own, user-mode network");
    }

    @Test
    void badAnnotationsAreRefusedNamingThem() throws Exception {
        RpcException swap = assertThrows(RpcException.class, () -> PodPlan.read("s", bundle("""
                {"annotations": {"io.kubernetes.cri.container-type": "sandbox", "io.jrunc.pod.swap": "12Q"}}""")));
        assertEquals(Code.INVALID_ARGUMENT, swap.code());
        assertTrue(swap.getMessage().contains("io.jrunc.pod.swap"), swap.getMessage());
        RpcException cpus = assertThrows(RpcException.class, () -> PodPlan.read("s", bundle("""
                {"annotations": {"io.jrunc.pod.cpus": "-1"}}""")));
        assertTrue(cpus.getMessage().contains("io.jrunc.pod.cpus"), cpus.getMessage());
        RpcException member = assertThrows(RpcException.class, () -> PodPlan.read("c", bundle("""
                {"annotations": {"io.kubernetes.cri.container-type": "container"}}""")));
        assertTrue(member.getMessage().contains("io.kubernetes.cri.sandbox-id"), member.getMessage());
    }

    @Test
    void theVmTablesSettingsAreReadAndAnUnknownOneRefusedByName() {
        VmTaskBackend.Settings s = VmTaskBackend.settings(Map.of("root", "/run/jr", "image", "/opt/img", "boot_timeout", "300"));
        assertEquals(Path.of("/run/jr"), s.stateRoot());
        assertEquals(Path.of("/opt/img"), s.image());
        assertEquals(Duration.ofSeconds(300), s.bootTimeout());
        assertEquals(VmTaskBackend.Settings.DEFAULTS, VmTaskBackend.settings(Map.of()));
        for (Map<String, String> bad : List.of(Map.of("roots", "/x"), Map.of("root", "relative"), Map.of("image", "/a/../b"),
                Map.of("boot_timeout", "soon"), Map.of("boot_timeout", "0"))) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> VmTaskBackend.settings(bad));
            assertTrue(e.getMessage().startsWith("vm." + bad.keySet().iterator().next() + ": "), e.getMessage());
        }
    }

    @Test
    void containerdsIdsBecomeNamesByJruncVmsRule() {
        String id = "a".repeat(64);
        String name = PodPlan.vmName("t", "k8s.io", id);
        assertTrue(Names.valid(name), name);
        assertEquals(name, PodPlan.vmName("t", "k8s.io", id), "stable");
        assertFalse(name.equals(PodPlan.vmName("t", "default", id)), "the namespace is part of it");
    }

    @Test
    void anExecsOciProcessBecomesTheAgentsProcessSpec() throws Exception {
        ProcessSpec p = VmTaskBackend.processSpec("""
                {"args": ["sh", "-c", "id"], "env": ["A=1"], "cwd": "/tmp", "terminal": true,
                 "consoleSize": {"height": 30, "width": 100},
                 "user": {"uid": 5, "gid": 6, "additionalGids": [7, 8]}}
                """.getBytes(StandardCharsets.UTF_8), false);
        assertEquals(List.of("sh", "-c", "id"), p.getArgsList());
        assertEquals(List.of("A=1"), p.getEnvList());
        assertEquals("/tmp", p.getCwd());
        assertTrue(p.getTerminal());
        assertEquals(30, p.getConsoleSize().getRows());
        assertEquals(100, p.getConsoleSize().getColumns());
        assertEquals(List.of(7, 8), p.getUser().getAdditionalGidsList());
        RpcException empty = assertThrows(RpcException.class, () -> VmTaskBackend.processSpec("{\"args\": []}".getBytes(StandardCharsets.UTF_8), false));
        assertEquals(Code.INVALID_ARGUMENT, empty.code());
    }

    @Test
    void theCriPluginsHostBindsBecomeWhatTheVmOffers() throws Exception {
        Path volume = Files.createDirectories(dir.resolve("volume"));
        Path hostsFile = Files.writeString(dir.resolve("hosts"), "127.0.0.1 localhost\n");
        Path b = bundle("""
                {"root": {"path": "rootfs"}, "mounts": [
                 {"destination": "/proc", "type": "proc", "source": "proc"},
                 {"destination": "/etc/hosts", "type": "bind", "source": "%s", "options": ["rbind", "rprivate", "rw"]},
                 {"destination": "/etc/resolv.conf", "type": "bind", "source": "%s", "options": ["rbind", "ro"]},
                 {"destination": "/dev/shm", "type": "bind", "source": "%s", "options": ["rbind", "rw"]},
                 {"destination": "/dev/termination-log", "type": "bind", "source": "%s", "options": ["rbind"]},
                 {"destination": "/data", "type": "bind", "source": "%s", "options": ["rbind", "ro"]}]}
                """.formatted(hostsFile, hostsFile, volume, hostsFile, volume));
        GuestBundle.Prepared p = GuestBundle.prepare(b, dir.resolve("rewritten"));
        assertTrue(p.rewritten());
        assertEquals(dir.resolve("rewritten"), p.bundle());
        assertEquals(List.of(new io.jrunc.vm.VolumeFlag.HostDirectory(volume, "/data", true)), p.shares());
        var config = new com.fasterxml.jackson.databind.ObjectMapper().readTree(p.bundle().resolve("config.json").toFile());
        assertEquals(b.resolve("rootfs").toString(), config.path("root").path("path").asText(), "the bundle's rootfs, absolute");
        List<String> left = new java.util.ArrayList<>();
        config.path("mounts").forEach(m -> left.add(m.path("destination").asText() + " " + m.path("type").asText()));
        assertEquals(List.of("/proc proc", "/dev/shm tmpfs"), left);

        Path plain = dir.resolve("plain");
        Files.createDirectories(plain.resolve("rootfs"));
        Files.writeString(plain.resolve("config.json"), "{\"mounts\": [{\"destination\": \"/proc\", \"type\": \"proc\"}]}");
        assertEquals(new GuestBundle.Prepared(plain, List.of(), false), GuestBundle.prepare(plain, dir.resolve("unused")));
        assertFalse(Files.exists(dir.resolve("unused")), "nothing written for a config the guest takes as it is");

        Files.writeString(plain.resolve("config.json"), "{\"mounts\": [{\"destination\": \"/x\", \"type\": \"bind\", \"source\": \""
                + hostsFile + "\"}]}");
        RpcException file = assertThrows(RpcException.class, () -> GuestBundle.prepare(plain, dir.resolve("unused")));
        assertEquals(Code.INVALID_ARGUMENT, file.code());
        assertTrue(file.getMessage().startsWith("mounts[0]: ") && file.getMessage().contains(hostsFile.toString()), file.getMessage());
    }

    @Test
    void aBundleWithoutConfigAndAnUnknownTaskAreRefusedAndNothingIsMade() throws Exception {
        Path root = dir.resolve("root");
        TaskEvents events = new TaskEvents() {
            @Override
            public void exited(String id, String execId, ProcessExit exit) {
                throw new AssertionError("no exit expected");
            }

            @Override
            public void oom(String id) {
                throw new AssertionError("no oom expected");
            }
        };
        VmTaskBackend backend = new VmTaskBackend(events, new VmTaskBackend.Settings(root, (r, pod) -> {
            throw new AssertionError("no monitor may start");
        }, Duration.ofSeconds(5), null));
        Path empty = Files.createDirectories(dir.resolve("empty"));
        RpcException noConfig = assertThrows(RpcException.class, () -> backend.create(new TaskRequests.Create("t1", empty, "ns",
                List.of(), new TaskRequests.Stdio("", "", "", false), Map.of())));
        assertEquals(Code.INVALID_ARGUMENT, noConfig.code());
        assertTrue(noConfig.getMessage().contains("config.json"), noConfig.getMessage());

        RpcException orphan = assertThrows(RpcException.class, () -> backend.create(new TaskRequests.Create("c1", bundle("""
                {"annotations": {"io.kubernetes.cri.container-type": "container", "io.kubernetes.cri.sandbox-id": "nope"}}
                """), "ns", List.of(), new TaskRequests.Stdio("", "", "", false), Map.of())));
        assertEquals(Code.NOT_FOUND, orphan.code());
        assertTrue(orphan.getMessage().contains("nope"), orphan.getMessage());

        assertEquals(Code.NOT_FOUND, assertThrows(RpcException.class, () -> backend.state("t1", "")).code());
        assertEquals(Code.NOT_FOUND, assertThrows(RpcException.class, () -> backend.kill("t1", "", 9, false)).code());
        assertTrue(backend.empty());
        backend.close();
        assertNull(Files.exists(root) ? listing(root) : null, "the state root is untouched");
    }

    private static List<Path> listing(Path root) throws Exception {
        try (Stream<Path> s = Files.walk(root)) {
            List<Path> all = s.filter(p -> !p.equals(root)).toList();
            return all.isEmpty() ? null : all;
        }
    }
}
