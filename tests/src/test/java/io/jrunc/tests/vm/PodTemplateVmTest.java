package io.jrunc.tests.vm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The pod template (`pod template`): a pod's VM saved at ready, its qemu ended; anonymous pods are
 * then restored from it rather than booted, with the host's clock, fresh entropy (two restored pods
 * draw other bytes), the container's hostname, and the template's files unchanged; a restored pod
 * takes no shared directory, and a container with one boots a pod of its own, as does one whose
 * template's state does not load; `pod template --rm`
 * leaves the restored pods running; a `pod template` killed while its VM boots leaves no qemu. One
 * template boot (and the start of one), two restores, two boots. Needs what PodVmTest needs (VmHost).
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class PodTemplateVmTest {
    static Path work;
    static Path bundle;
    static JruncVm vm;
    static Path template;
    /** The template's files' digests as made. */
    static List<String> made;
    /** c1's pod, restored from the template, and the bytes its /dev/urandom gave. */
    static String restoredPod;
    static String firstBytes;

    @BeforeAll
    static void setUp() throws Exception {
        VmHost.requirePods();
        work = Files.createTempDirectory("jrunc-vm-template");
        vm = new JruncVm(work);
        bundle = PodVmTest.busyboxBundle(work.resolve("bundle"));
    }

    @AfterAll
    static void tearDown() throws Exception {
        if (vm != null) {
            vm.removePodsAndWork();
        }
    }

    static List<String> templateDigests() throws Exception {
        // the storage test's digest of a file
        return List.of(PodStorageVmTest.sha256(template.resolve("ram")),
                PodStorageVmTest.sha256(template.resolve("agent-root.img")));
    }

    static JsonNode pod(String name) throws Exception {
        for (JsonNode p : vm.json("pod", "ls", "--format", "json")) {
            if (p.path("name").asText().equals(name)) {
                return p;
            }
        }
        return null;
    }

    static String podOf(String container) throws Exception {
        return vm.json("inspect", container).path("pod").asText();
    }

    /** A `pod template` killed while its VM boots takes the VM with it; `pod template --rm` clears its files. */
    @Test
    @Order(0)
    void aKilledTemplateMakeLeavesNoVm() throws Exception {
        Process make = vm.start("pod", "template");
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (ShimVmBackendTest.processes("qemu-system", vm.root().toString()).isEmpty() && make.isAlive()
                && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertTrue(make.isAlive(), "killed while its VM boots");
        make.destroyForcibly();
        make.waitFor(10, java.util.concurrent.TimeUnit.SECONDS);
        deadline = System.nanoTime() + 10_000_000_000L;
        while (!ShimVmBackendTest.processes("qemu-system", vm.root().toString()).isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        assertEquals(List.of(), ShimVmBackendTest.processes("qemu-system", vm.root().toString()), "the VM went with it");
        vm.ok("pod", "template", "--rm");
        assertFalse(Files.exists(vm.root().resolve("template.new")), "--rm clears a killed make's files");
        assertFalse(Files.exists(vm.root().resolve("template")));
    }

    @Test
    @Order(1)
    void theTemplateIsMadeAndItsVmEnds() throws Exception {
        JruncVm.Result r = vm.run("pod", "template");
        assertEquals(0, r.code(), r.all());
        template = vm.root().resolve("template");
        assertEquals(template.toString(), r.out().strip());
        for (String f : List.of("ram", "agent-root.img", "state", "template.json")) {
            assertTrue(Files.isRegularFile(template.resolve(f)), f + " in " + template);
        }
        assertTrue(Files.size(template.resolve("state")) < 8 << 20, "the devices' state alone: " + Files.size(template.resolve("state")));
        assertFalse(Files.exists(vm.root().resolve("template.new")), "no scratch left");
        assertEquals(List.of(), ShimVmBackendTest.processes("qemu-system", vm.root().toString()), "the template's VM ended");
        assertEquals(0, vm.json("pod", "ls", "--format", "json").size(), "no pod");
        made = templateDigests();
    }

    @Test
    @Order(2)
    void anAnonymousContainerIsRestoredWithTheHostsClockAndItsOwnName() throws Exception {
        // the template's guest clock stopped when it was saved: a restored pod's would be behind by now
        Thread.sleep(4000);
        vm.ok("create", "--name", "c1", bundle.toString(), "sleep", "1000");
        vm.ok("start", "c1");
        restoredPod = podOf("c1");
        JsonNode p = pod(restoredPod);
        assertNotNull(p, restoredPod);
        assertTrue(p.path("restored").asBoolean() && p.path("anonymous").asBoolean(), p.toString() + "\n" + vm.vmLogs());
        JruncVm.Result r = vm.ok("exec", "c1", "sh", "-c", "date +%s; hostname; head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \\n';"
                + " echo; awk '$2 == \"00000000\" {print $1}' /proc/net/route");
        long now = System.currentTimeMillis() / 1000;
        List<String> lines = r.out().lines().toList();
        long guest = Long.parseLong(lines.get(0).strip());
        assertTrue(Math.abs(guest - now) <= 2, "the guest's clock is the host's: " + guest + " against " + now);
        assertEquals("c1", lines.get(1));
        firstBytes = lines.get(2);
        Path dir = vm.root().resolve("pods").resolve(restoredPod);
        String console = Files.readString(dir.resolve("console.log"));
        assertTrue(console.contains("clock set to the host's") && console.contains("bytes of entropy from the host added"), console);
        // the network the template's agent applied, left in place: the default route is there
        assertTrue(console.contains("network: as already configured"), console);
        assertEquals("eth0", lines.get(3), "the default route's interface: " + r.out());
        assertTrue(Files.readString(dir.resolve("monitor.log")).contains("restored from the template in"), vm.vmLogs());
    }

    @Test
    @Order(3)
    void aSecondRestoredPodDrawsOtherBytesAndTheTemplateStaysAsMade() throws Exception {
        JruncVm.Result r = vm.ok("run", "--rm", "--name", "c2", bundle.toString(), "sh", "-c",
                "hostname; head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \\n'");
        List<String> lines = r.out().lines().toList();
        assertEquals("c2", lines.get(0));
        assertEquals(32, lines.get(1).length(), r.out());
        assertNotEquals(firstBytes, lines.get(1), "each restored pod's generator is reseeded");
        assertEquals(made, templateDigests(), "the restored VMs wrote nothing to the template's files");
    }

    /** A template whose state qemu cannot load: the pod boots, with its own hardware address, and runs. */
    @Test
    @Order(4)
    void aTemplateThatDoesNotLoadLeavesThePodToBoot() throws Exception {
        Path state = template.resolve("state");
        byte[] saved = Files.readAllBytes(state);
        Files.writeString(state, "not a state");
        try {
            JruncVm.Result r = vm.ok("run", "--name", "c5", bundle.toString(), "hostname");
            assertEquals("c5\n", r.out());
            String pod = podOf("c5");
            assertFalse(pod(pod).path("restored").asBoolean());
            String log = Files.readString(vm.root().resolve("pods").resolve(pod).resolve("monitor.log"));
            assertTrue(log.contains("not restored from the template (loading the VM's state") && log.contains("): booting"), log);
            vm.ok("rm", "c5");
        } finally {
            Files.write(state, saved);
        }
    }

    @Test
    @Order(5)
    void aRestoredPodTakesNoSharedDirectory() throws Exception {
        Path shared = Files.createDirectories(work.resolve("shared"));
        JruncVm.Result r = vm.run("create", "--pod", restoredPod, "--name", "c3", "-v", shared + ":/data", bundle.toString(), "true");
        assertNotEquals(0, r.code(), r.all());
        assertTrue(r.err().contains("restored from the pod template") && r.err().strip().lines().count() == 1, r.all());
        // the first column: an anonymous pod's random name may hold "c3" too
        assertFalse(vm.ok("ls").out().lines().anyMatch(l -> l.startsWith("c3 ")), "no c3 left");
    }

    @Test
    @Order(6)
    void aContainerWithASharedDirectoryBootsAPodOfItsOwn() throws Exception {
        Path shared = Files.createDirectories(work.resolve("shared"));
        Files.writeString(shared.resolve("f"), "from the host\n");
        JruncVm.Result r = vm.run("run", "--name", "c4", "-v", shared + ":/data", bundle.toString(), "cat", "/data/f");
        assertEquals(0, r.code(), r.all() + "\n" + vm.vmLogs());
        assertEquals("from the host\n", r.out());
        JsonNode p = pod(podOf("c4"));
        assertFalse(p.path("restored").asBoolean(), p.toString());
        vm.ok("rm", "c4");
    }

    @Test
    @Order(7)
    void removingTheTemplateLeavesItsPodsRunning() throws Exception {
        vm.ok("pod", "template", "--rm");
        assertFalse(Files.exists(template));
        assertEquals("ok\n", vm.ok("exec", "c1", "echo", "ok").out());
        vm.ok("rm", "-f", "c1");
        assertEquals(List.of(), ShimVmBackendTest.processes("qemu-system", vm.root().toString()), "no qemu");
        assertEquals(0, vm.json("pod", "ls", "--format", "json").size(), "no pod");
    }
}
