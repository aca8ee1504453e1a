package io.jrunc.vm.state;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
        return new PodRecord(name, false, 2, 256L << 20, "h", List.of("10.0.0.1"), List.of("db:10.0.0.2"),
                Map.of("net.ipv4.ip_forward", "1"), null, null, 1, 0, 0, null);
    }

    @Test
    void recordsRoundTrip() throws VmException {
        StateRoot root = new StateRoot(dir);
        PodRecord p = pod("p1").withVm(42, 4242, "sha256:abc");
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
        assertEquals(List.of(), root.pod("p").orElseThrow().dns());
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
}
