package io.jrunc.tests.vm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * A pod's storage on a real VM, through build/bin/jrunc-vm: each writable root an overlay over the
 * read-only image with its upper layer on the container's own disk (layer.img), kept across the
 * container's and the pod's restarts and dropped by rm, the image file on the host never changed; a
 * mount point missing from the image created in a writable root and refused at create for a
 * read-only one; a full layer giving ENOSPC to its container alone; a pod volume shared by two
 * containers and kept across the pod's restart. The cases share the pod's first boot; `pod stop` and
 * `pod start` boot it once more. Needs what PodVmTest needs (VmHost).
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class PodStorageVmTest {
    static final String POD = "store";

    static Path work;
    static Path root;
    /** A busybox bundle whose root is writable (root.readonly false). */
    static Path bundle;
    /** The same with a tmpfs mounted at /scratch, which its rootfs lacks. */
    static Path scratchBundle;
    /** PodVmTest's bundle (root.readonly true) with the same mount. */
    static Path readOnlyScratchBundle;
    static JruncVm vm;
    static String imageSha;

    @BeforeAll
    static void setUp() throws IOException {
        VmHost.requirePods();
        work = Files.createTempDirectory("jrunc-vm-storage");
        vm = new JruncVm(work);
        root = vm.root();
        bundle = writable(work.resolve("bundle"), "");
        scratchBundle = writable(work.resolve("scratch-bundle"),
                ",\n {\"destination\": \"/scratch\", \"type\": \"tmpfs\", \"source\": \"tmpfs\", \"options\": [\"size=1m\"]}");
        assertFalse(Files.exists(scratchBundle.resolve("rootfs/scratch"), LinkOption.NOFOLLOW_LINKS));
        readOnlyScratchBundle = PodVmTest.busyboxBundle(work.resolve("ro-scratch-bundle"));
        Files.createSymbolicLink(readOnlyScratchBundle.resolve("rootfs/bin/touch"), Path.of("busybox"));
        String tmp = "{\"destination\": \"/tmp\", \"type\": \"tmpfs\", \"source\": \"tmpfs\", \"options\": [\"size=1g\"]}";
        Files.writeString(readOnlyScratchBundle.resolve("config.json"), Files.readString(readOnlyScratchBundle.resolve("config.json"))
                .replace(tmp, tmp + ",\n {\"destination\": \"/scratch\", \"type\": \"tmpfs\", \"source\": \"tmpfs\"}"));
    }

    @AfterAll
    static void tearDown() throws Exception {
        if (root != null && Files.exists(root)) {
            for (JsonNode p : JruncVm.JSON.readTree(vm.run("pod", "ls", "--format", "json").out())) {
                vm.run("pod", "rm", "-f", p.path("name").asText());
            }
        }
        if (work != null) {
            io.jrunc.bindings.FileTrees.delete(work); // the bundles, the calls' output files, the state root
        }
    }

    /** PodVmTest's busybox bundle with a writable root, a few more applets, and {@code extraMounts} after /tmp's. */
    static Path writable(Path dir, String extraMounts) throws IOException {
        PodVmTest.busyboxBundle(dir);
        Path bin = dir.resolve("rootfs/bin");
        for (String applet : List.of("dd", "sync", "mkdir", "touch", "grep")) {
            Files.createSymbolicLink(bin.resolve(applet), Path.of("busybox"));
        }
        String tmp = "{\"destination\": \"/tmp\", \"type\": \"tmpfs\", \"source\": \"tmpfs\", \"options\": [\"size=1g\"]}";
        String config = Files.readString(dir.resolve("config.json"));
        assertTrue(config.contains(tmp) && config.contains("\"readonly\": true"));
        Files.writeString(dir.resolve("config.json"), config.replace("\"readonly\": true", "\"readonly\": false")
                .replace(tmp, tmp + extraMounts));
        return dir;
    }

    static JruncVm.Result ok(String... args) throws Exception {
        return vm.ok(args);
    }

    static String exec(String container, String script) throws Exception {
        return ok("exec", container, "sh", "-c", script).out().strip();
    }

    static Path containerDir(String name) {
        return root.resolve("pods").resolve(POD).resolve("containers").resolve(name);
    }

    static String sha256(Path file) throws Exception {
        MessageDigest md = MessageDigest.getInstance("SHA-256");
        try (InputStream in = Files.newInputStream(file)) {
            byte[] buf = new byte[1 << 16];
            for (int n; (n = in.read(buf)) > 0; ) {
                md.update(buf, 0, n);
            }
        }
        return HexFormat.of().formatHex(md.digest());
    }

    @Test
    @Order(1)
    void aPodWithAVolumeAndTwoWritableContainers() throws Exception {
        assertEquals(POD + "\n", ok("pod", "create", "--name", POD, "--volume", "shared:64m").out());
        Path volume = root.resolve("pods").resolve(POD).resolve("volumes/shared.img");
        assertEquals(64L << 20, Files.size(volume), "the volume's file is its size");
        ok("create", "--pod", POD, "--name", "a", "--layer-size", "32m", "-v", "shared:/shared", bundle.toString(), "sleep", "100000");
        imageSha = sha256(containerDir("a").resolve("rootfs.img"));
        assertEquals(32L << 20, Files.size(containerDir("a").resolve("layer.img")), "a's layer is --layer-size");
        ok("create", "--pod", POD, "--name", "b", "--volume", "shared:/shared", bundle.toString(), "sleep", "100001");
        assertEquals(1L << 30, Files.size(containerDir("b").resolve("layer.img")), "the default layer is 1g");
        ok("start", "a");
        ok("start", "b");
        // the root is an overlay whose upper layer is a disk, not a tmpfs
        String mounts = exec("a", "cat /proc/mounts");
        assertTrue(mounts.lines().anyMatch(l -> l.startsWith("overlay / overlay ") && l.contains("upperdir=")), mounts);
    }

    @Test
    @Order(2)
    void aFileWrittenUnderRootSurvivesTheContainersStopAndStart() throws Exception {
        exec("a", "echo kept-by-the-layer > /root-file && mkdir -p /var/lib/app && echo deep > /var/lib/app/state && sync");
        ok("stop", "-t", "1", "a");
        assertEquals("stopped", vm.json("inspect", "a").path("state").asText());
        ok("start", "a");
        assertEquals("running", vm.json("inspect", "a").path("state").asText());
        assertEquals("kept-by-the-layer\ndeep", exec("a", "cat /root-file /var/lib/app/state"));
        assertEquals("", exec("b", "ls /root-file 2>/dev/null; true"), "b has a root of its own");
    }

    @Test
    @Order(3)
    void aPodVolumeWrittenByOneContainerIsReadByTheOther() throws Exception {
        exec("a", "echo from-a > /shared/note");
        assertEquals("from-a", exec("b", "cat /shared/note"));
        exec("b", "echo from-b >> /shared/note");
        assertEquals("from-a\nfrom-b", exec("a", "cat /shared/note"));
        // mounted :ro by a third container, it reads and cannot write
        assertEquals("from-a\nfrom-b\nrefused", ok("run", "--pod", POD, "--rm", "-v", "shared:/shared:ro", bundle.toString(),
                "sh", "-c", "cat /shared/note; echo x >> /shared/note 2>/dev/null || echo refused").out().strip());
    }

    @Test
    @Order(4)
    void aMountPointMissingFromTheImageIsCreatedAndRefusedForAReadOnlyRoot() throws Exception {
        JruncVm.Result r = ok("run", "--pod", POD, "--rm", "--name", "scratch", scratchBundle.toString(),
                "sh", "-c", "echo hi > /scratch/x && cat /scratch/x && grep ' /scratch ' /proc/mounts");
        assertTrue(r.out().startsWith("hi\ntmpfs /scratch tmpfs"), r.all());

        // a bundle's own root.readonly gets its mount points made, as runc makes them, and stays read-only
        assertEquals("ro-hi\nread-only", ok("run", "--pod", POD, "--rm", readOnlyScratchBundle.toString(), "sh", "-c",
                "echo ro-hi > /scratch/x && cat /scratch/x; touch /y 2>/dev/null || echo read-only").out().strip());

        JruncVm.Result refused = vm.run("create", "--pod", POD, "--name", "ro", "--read-only", scratchBundle.toString());
        assertEquals(125, refused.code(), refused.all());
        assertEquals(1, refused.err().lines().count(), refused.all());
        assertTrue(refused.err().contains("/scratch") && refused.err().contains("--read-only"), refused.all());
        assertFalse(Files.exists(containerDir("ro")), "nothing left of the refused container");
        assertFalse(vm.run("ls").out().contains("ro "), "ls does not list it");
        // the same bundle's read-only root is fine once the image has the mount point
        Files.createDirectories(scratchBundle.resolve("rootfs/scratch"));
        assertEquals("ro-ok", ok("run", "--pod", POD, "--rm", "--read-only", scratchBundle.toString(), "sh", "-c",
                "echo ro-ok; touch /x 2>/dev/null && echo wrote-the-root; true").out().strip());
    }

    @Test
    @Order(5)
    void aFullLayerGivesEnospcToItsContainerAlone() throws Exception {
        JruncVm.Result full = vm.run("exec", "a", "dd", "if=/dev/zero", "of=/fill", "bs=1M", "count=64");
        assertNotEquals(0, full.code(), full.all());
        assertTrue(full.err().contains("No space left on device"), full.all());
        // the pod and its other container carry on; a goes on running and reading
        assertEquals("b-writes", exec("b", "echo b-writes > /b-file && cat /b-file"));
        assertEquals("kept-by-the-layer", exec("a", "cat /root-file"));
        assertEquals("running", vm.json("inspect", "a").path("state").asText());
        assertEquals("running", vm.json("pod", "inspect", POD).path("state").asText());
        exec("a", "rm /fill");
        assertEquals("writes-again", exec("a", "echo writes-again > /after && cat /after"));
    }

    @Test
    @Order(6)
    void writesAndTheVolumeSurviveThePodsStopAndStartAndTheImageNeverChanges() throws Exception {
        ok("pod", "stop", POD);
        assertEquals("stopped", vm.json("pod", "inspect", POD).path("state").asText());
        assertEquals(imageSha, sha256(containerDir("a").resolve("rootfs.img")), "the image file on the host is unchanged");
        ok("pod", "start", POD);
        assertEquals("kept-by-the-layer\ndeep", exec("a", "cat /root-file /var/lib/app/state"));
        assertEquals("b-writes", exec("b", "cat /b-file"));
        assertEquals("from-a\nfrom-b", exec("b", "cat /shared/note"));
        assertEquals(imageSha, sha256(containerDir("a").resolve("rootfs.img")), "the image file on the host is unchanged");
    }

    @Test
    @Order(7)
    void rmDropsTheWrites() throws Exception {
        ok("rm", "-f", "a");
        assertFalse(Files.exists(containerDir("a")), "the layer went with the container");
        ok("create", "--pod", POD, "--name", "a", bundle.toString(), "sleep", "100002");
        ok("start", "a");
        assertEquals("gone", exec("a", "cat /root-file 2>/dev/null || echo gone"));
    }

    @Test
    @Order(8)
    void theVolumeGoesWithPodRm() throws Exception {
        Path pod = root.resolve("pods").resolve(POD);
        assertTrue(Files.exists(pod.resolve("volumes/shared.img")));
        ok("pod", "rm", "-f", POD);
        assertFalse(Files.exists(pod), "the pod's directory, volumes and layers included, is gone");
        try (Stream<Path> left = Files.walk(root)) {
            assertTrue(left.noneMatch(p -> p.toString().endsWith(".img")), "no image, layer or volume file left");
        }
    }
}
