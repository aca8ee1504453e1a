package io.jrunc.vm.state;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.jrunc.vm.VmException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StateRootTest {
    @TempDir
    Path dir;

    static PodRecord pod(String name) {
        return new PodRecord(name, false, 1, new PodRecord.Config(2, 256L << 20, "h", List.of("10.0.0.1"),
                List.of("db:10.0.0.2"), Map.of("net.ipv4.ip_forward", "1"), null, null, 0, null), PodRecord.Vm.NONE);
    }

    @Test
    void recordsRoundTrip() throws VmException {
        StateRoot root = new StateRoot(dir);
        PodRecord p = pod("p1").withVm(new PodRecord.Vm(42, 4242, "sha256:abc"));
        root.write(p);
        assertEquals(p, root.pod("p1").orElseThrow());
        ContainerRecord c = new ContainerRecord("c1", "p1", "/b", "jr0123", List.of("sh"), 5, "created", 0);
        root.write(c);
        assertEquals(c, root.container("c1").orElseThrow());
        assertEquals(List.of(c), root.containers());
        assertEquals(List.of(p), root.pods());
        assertFalse(Files.exists(root.podDir("p1").resolve("pod.json.tmp")), "written through a rename");
    }

    @Test
    void absentIsEmptyButUnreadableIsAnError() throws Exception {
        StateRoot root = new StateRoot(dir);
        assertTrue(root.pod("none").isEmpty());
        assertTrue(root.pods().isEmpty());
        Files.createDirectories(root.podDir("bad"));
        Files.writeString(root.podDir("bad").resolve("pod.json"), "{not json");
        VmException e = assertThrows(VmException.class, root::pods);
        assertTrue(e.getMessage().contains("pod.json"), e.getMessage());
    }

    @Test
    void unknownFieldsFromANewerVersionAreIgnored() throws Exception {
        StateRoot root = new StateRoot(dir);
        Files.createDirectories(root.podDir("p"));
        Files.writeString(root.podDir("p").resolve("pod.json"), "{\"name\":\"p\",\"cpus\":1,\"swapBytes\":5}");
        assertEquals("p", root.pod("p").orElseThrow().name());
        assertEquals(List.of(), root.pod("p").orElseThrow().config().dns());
    }

    /** pod.json as jrunc-vm wrote it before the record had parts: one flat object. */
    static final String FLAT_POD_JSON = """
            {"name":"p","anonymous":false,"cpus":2,"memoryBytes":268435456,"hostname":"h","dns":["10.0.0.1"],
             "addHosts":["db:10.0.0.2"],"sysctls":{"net.ipv4.ip_forward":"1"},"kernel":"/k","initrd":"/i",
             "createdAt":7,"qemuPid":42,"qemuStartedAt":4242,"bootedDigest":"sha256:abc","swapBytes":1048576}""";

    @Test
    void podJsonStaysOneFlatObjectThatEveryVersionReads() throws Exception {
        StateRoot root = new StateRoot(dir);
        Files.createDirectories(root.podDir("p"));
        Files.writeString(root.podDir("p").resolve("pod.json"), FLAT_POD_JSON);
        PodRecord p = root.pod("p").orElseThrow();
        assertEquals(new PodRecord("p", false, 7, new PodRecord.Config(2, 256L << 20, "h", List.of("10.0.0.1"),
                List.of("db:10.0.0.2"), Map.of("net.ipv4.ip_forward", "1"), "/k", "/i", 1 << 20, null),
                new PodRecord.Vm(42, 4242, "sha256:abc")), p);
        // written back, it has exactly the keys (and values) an older version reads
        root.write(p);
        ObjectMapper json = new ObjectMapper();
        assertEquals(json.readTree(FLAT_POD_JSON), json.readTree(Files.readString(root.podDir("p").resolve("pod.json"))));
        // a file without the VM's fields (never booted) or the configuration's gets their defaults
        Files.writeString(root.podDir("p").resolve("pod.json"), "{\"name\":\"p\",\"cpus\":1}");
        assertEquals(PodRecord.Vm.NONE, root.pod("p").orElseThrow().vm());
        assertFalse(root.pod("p").orElseThrow().vm().everBooted());
    }

    @Test
    void namesThatBreakTheRuleNeverBecomePaths() throws Exception {
        StateRoot root = new StateRoot(dir);
        root.write(pod("other"));
        root.write(new ContainerRecord("victim", "other", "/b", "s", List.of(), 0, "created", 0));
        for (String bad : List.of("..", ".", "../other", "a/b", "../../pods/other/containers/victim", "", "-x")) {
            assertThrows(VmException.class, () -> root.podDir(bad), bad);
            assertThrows(VmException.class, () -> root.pod(bad), bad);
            assertThrows(VmException.class, () -> root.containerDir("other", bad), bad);
            VmException e = assertThrows(VmException.class, () -> root.container(bad), bad);
            assertTrue(e.getMessage().contains("invalid container name"), e.getMessage());
        }
        // an entry under pods/ that is no pod name (made by hand) is not listed, not an error
        Files.createDirectories(dir.resolve("pods").resolve(".hidden"));
        assertEquals(List.of("other"), root.pods().stream().map(PodRecord::name).toList());
    }

    @Test
    void removeTreeRemovesEverything() throws Exception {
        StateRoot root = new StateRoot(dir);
        root.write(pod("p"));
        root.write(new ContainerRecord("c", "p", "/b", "s", List.of(), 0, "created", 0));
        StateRoot.removeTree(root.podDir("p"));
        assertFalse(Files.exists(root.podDir("p")));
        StateRoot.removeTree(root.podDir("p"));
    }

    /**
     * The streaming reader (StateFiles) reads every field the records' JSON has exactly as the mapper's
     * binding reads it: a pod with each part set (network, swap, image, VM), one with the defaults, a
     * container with shares and one without.
     */
    @Test
    void theStreamingReaderReadsWhatTheMapperBinds() throws Exception {
        ObjectMapper json = new ObjectMapper();
        PodRecord.Network net = new PodRecord.Network("user", List.of("8080:80/tcp"), List.of("example.org"), List.of("ndots:2"),
                "52:54:00:00:00:01", List.of("10.0.2.15/24"), "10.0.2.2", 1500);
        List<PodRecord> pods = List.of(
                new PodRecord("p", true, 7, new PodRecord.Config(3, 1L << 30, "h", List.of("1.1.1.1"), List.of("a:1.2.3.4"),
                        Map.of("net.ipv4.ip_forward", "1", "kernel.shmmax", "1"), "/k", "/i", 1 << 26, net),
                        new PodRecord.Vm(42, 4242, "sha256:abc")),
                pod("q"),
                PodRecord.created("r", false, PodRecord.Config.of(1, 0, null)),
                PodRecord.pooled("s", PodRecord.Config.of(1, 512L << 20, "s")).withVm(new PodRecord.Vm(43, 4343, "sha256:abc")),
                PodRecord.pooled("t", PodRecord.Config.of(1, 512L << 20, "t")).taken("c1"),
                pod("u").withVm(new PodRecord.Vm(44, 4444, "sha256:abc", true)));
        for (PodRecord p : pods) {
            byte[] bytes = json.writeValueAsBytes(p);
            assertEquals(json.readValue(bytes, PodRecord.class), StateFiles.pod(bytes), new String(bytes));
            assertEquals(p, StateFiles.pod(bytes));
        }
        List<ContainerRecord> containers = List.of(
                new ContainerRecord("c", "p", "/b", "jr01", List.of("sh", "-c", "echo \"hi\""), 5, "stopped", 137,
                        List.of(new HostShare("fs1", "/srv", "/data", true), new HostShare("fs2", "/r", HostShare.ROOT, false))),
                new ContainerRecord("d", "p", "/b", "", List.of(), 0, "creating", 0),
                new ContainerRecord("e", "p", "/b", "jr02", List.of("sleep", "9"), 6, "running", 0, List.of(), 42));
        for (ContainerRecord c : containers) {
            byte[] bytes = json.writeValueAsBytes(c);
            assertEquals(json.readValue(bytes, ContainerRecord.class), StateFiles.container(bytes), new String(bytes));
            assertEquals(c, StateFiles.container(bytes));
        }
        // unknown fields of any shape are skipped, as the mapper's binding ignores them
        byte[] newer = "{\"name\":\"c\",\"pod\":\"p\",\"future\":{\"a\":[1,{\"b\":null}]},\"exitCode\":3}".getBytes();
        assertEquals(json.readValue(newer, ContainerRecord.class), StateFiles.container(newer));
        // a field of the wrong shape is an error naming the file, never a stack trace
        StateRoot root = new StateRoot(dir);
        root.write(pod("w"));
        Files.writeString(root.podDir("w").resolve("pod.json"), "{\"name\":\"w\",\"dns\":\"1.1.1.1\"}");
        VmException e = assertThrows(VmException.class, () -> root.pod("w"));
        assertTrue(e.getMessage().contains("pod.json") && e.getMessage().contains("dns"), e.getMessage());
    }

    /** A state file holds, byte for byte, what an ObjectMapper with INDENT_OUTPUT writes of the record. */
    @Test
    void stateFilesAreTheMappersBytes() throws Exception {
        ObjectMapper json = new ObjectMapper().enable(com.fasterxml.jackson.databind.SerializationFeature.INDENT_OUTPUT);
        StateRoot root = new StateRoot(dir);
        PodRecord.Network net = new PodRecord.Network("user", List.of("8080:80/tcp"), List.of(), List.of("ndots:2"),
                "52:54:00:00:00:01", List.of("10.0.2.15/24"), "10.0.2.2", 1500);
        PodRecord p = new PodRecord("p", false, 7, new PodRecord.Config(3, 1L << 30, "h", List.of("1.1.1.1"), List.of(),
                Map.of("a", "1"), "/k", null, 1 << 26, net), new PodRecord.Vm(42, 4242, "sha256:abc"));
        root.write(p);
        assertEquals(json.writeValueAsString(p), Files.readString(root.podDir("p").resolve("pod.json")));
        // a pooled pod's record says so; once taken it is written as any other pod's (no pooled key)
        PodRecord pooled = PodRecord.pooled("s", PodRecord.Config.of(1, 512L << 20, "s"));
        root.write(pooled);
        assertEquals(json.writeValueAsString(pooled), Files.readString(root.podDir("s").resolve("pod.json")));
        assertTrue(Files.readString(root.podDir("s").resolve("pod.json")).contains("\"pooled\" : true"));
        root.write(pooled.taken("c1"));
        assertEquals(json.writeValueAsString(pooled.taken("c1")), Files.readString(root.podDir("s").resolve("pod.json")));
        assertFalse(Files.readString(root.podDir("s").resolve("pod.json")).contains("pooled"));
        assertEquals("c1", root.pod("s").orElseThrow().config().hostname());
        // a VM restored from the pod template is recorded so, and only then (no restored key otherwise)
        PodRecord restored = pooled.taken("c1").withVm(new PodRecord.Vm(44, 4444, "sha256:abc", true));
        root.write(restored);
        assertEquals(json.writeValueAsString(restored), Files.readString(root.podDir("s").resolve("pod.json")));
        assertTrue(root.pod("s").orElseThrow().vm().restored());
        root.write(restored.withVm(new PodRecord.Vm(44, 4444, "sha256:abc")));
        assertFalse(Files.readString(root.podDir("s").resolve("pod.json")).contains("restored"));
        ContainerRecord c = new ContainerRecord("c", "p", "/b", "jr01", List.of("sh", "-c", "echo \"hi\""), 5, "running", 0,
                List.of(new HostShare("fs1", "/srv", "/data", true)), 42);
        root.write(c);
        assertEquals(json.writeValueAsString(c), Files.readString(root.containerDir("p", "c").resolve("container.json")));
        assertTrue(root.update(c.withState("stopped", 3)));
        assertEquals(json.writeValueAsString(c.withState("stopped", 3)),
                Files.readString(root.containerDir("p", "c").resolve("container.json")));
        // update never makes a directory: a removed container's record does not come back
        root.removeContainer("p", "c");
        assertFalse(root.update(c));
        assertFalse(Files.exists(root.containerDir("p", "c")));
    }

    /** The trees ls and inspect print are the mapper's valueToTree of the records, field for field, in order. */
    @Test
    void recordTreesAreTheMappersTrees() throws Exception {
        ObjectMapper json = new ObjectMapper();
        PodRecord.Network net = new PodRecord.Network("user", List.of("8080:80/tcp"), List.of(), List.of("ndots:2"),
                "52:54:00:00:00:01", List.of("10.0.2.15/24"), "10.0.2.2", 1500);
        for (PodRecord p : List.of(pod("q"), PodRecord.created("r", true, PodRecord.Config.of(1, 0, null)),
                PodRecord.pooled("s", PodRecord.Config.of(1, 512L << 20, "s")),
                new PodRecord("p", false, 7, new PodRecord.Config(3, 1L << 30, "h", List.of("1.1.1.1"), List.of(),
                        Map.of("a", "1", "b", "2", "c", "3"), "/k", null, 1 << 26, net), new PodRecord.Vm(42, 4242, "sha256:abc")))) {
            assertEquals(json.writeValueAsString(json.valueToTree(p)), json.writeValueAsString(RecordTrees.of(p)));
        }
        for (ContainerRecord c : List.of(new ContainerRecord("d", "p", "/b", "", List.of(), 0, "creating", 0),
                new ContainerRecord("c", "p", "/b", "jr01", List.of("sh", "-c", "x"), 5, "stopped", 137,
                        List.of(new HostShare("fs1", "/srv", "/data", true), new HostShare("fs2", "/r", HostShare.ROOT, false))),
                new ContainerRecord("e", "p", "/b", "jr02", List.of("sleep", "9"), 6, "paused", 0, List.of(), 42))) {
            assertEquals(json.writeValueAsString(json.valueToTree(c)), json.writeValueAsString(RecordTrees.of(c)));
        }
    }
}
