package io.jrunc.tests.vm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrunc.tests.Host;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Host directories shared with a pod's containers through virtio-fs (`create -v HOSTDIR:CTRPATH[:ro]`),
 * on one real boot: a file a container's user writes is on the host at once with that uid; a
 * read-only share refuses writes (EROFS); `..` and symlinks pointing out of the share stay inside it
 * (a file placed next to the shared directory on the host is never read); the virtiofsd processes
 * and their sockets go with the container (`rm -f`, also after a killed and after a failed create) and
 * with the pod (`pod stop`, `pod rm -f`), and `pod start` makes a kept container's share again. Two boots. Needs what PodVmTest needs (VmHost), and qemu's virtiofsd.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class PodShareVmTest {
    static final String POD = "share-pod";
    static final int UID = 1234;
    static final String SECRET = "host-secret-next-to-the-share";
    static final Path VIRTIOFSD = Path.of("/usr/lib/qemu/virtiofsd");

    static Path work;
    static Path bundle;
    /** work/parent/shared (shared read-write), work/parent/readonly (shared :ro), work/parent/secret.txt (never shared). */
    static Path parent;
    static Path shared;
    static Path readonly;
    static JruncVm vm;

    @BeforeAll
    static void setUp() throws IOException {
        VmHost.requirePods();
        io.jrunc.testsupport.Requirements.require(Files.isExecutable(VIRTIOFSD), VIRTIOFSD + ": qemu's virtiofsd (qemu-system-common)");
        work = Files.createTempDirectory("jrunc-vm-share");
        // readable by the container's user, so that only the sandbox keeps the secret from it
        Files.setPosixFilePermissions(work, PosixFilePermissions.fromString("rwxr-xr-x"));
        vm = new JruncVm(work);
        bundle = bundle(work.resolve("bundle"));
        parent = Files.createDirectories(work.resolve("parent"));
        Files.writeString(parent.resolve("secret.txt"), SECRET + "\n");
        shared = Files.createDirectories(parent.resolve("shared"));
        Files.setPosixFilePermissions(shared, PosixFilePermissions.fromString("rwxrwxrwx"));
        Files.createDirectories(shared.resolve("sub"));
        Files.writeString(shared.resolve("inside.txt"), "inside\n");
        Files.createSymbolicLink(shared.resolve("up"), Path.of(".."));
        Files.createSymbolicLink(shared.resolve("root"), Path.of("/"));
        Files.createSymbolicLink(shared.resolve("abs"), parent);
        Files.createSymbolicLink(shared.resolve("self"), Path.of("."));
        readonly = Files.createDirectories(parent.resolve("readonly"));
        // writable by the container's user: only the read-only mount refuses its write
        Files.setPosixFilePermissions(readonly, PosixFilePermissions.fromString("rwxrwxrwx"));
        Files.writeString(readonly.resolve("ro.txt"), "read-only content\n");
    }

    @AfterAll
    static void tearDown() throws Exception {
        if (vm != null) {
            vm.removePodsAndWork(); // never following links: the share holds one to /
        }
    }

    /** PodVmTest's busybox bundle, its process a `sleep` as uid 1234. */
    static Path bundle(Path dir) throws IOException {
        PodVmTest.busyboxBundle(dir);
        Path bin = dir.resolve("rootfs/bin");
        for (String applet : List.of("id", "stat", "touch")) {
            Files.createSymbolicLink(bin.resolve(applet), Path.of("busybox"));
        }
        String config = Files.readString(dir.resolve("config.json"))
                .replace("\"user\": {\"uid\": 0, \"gid\": 0}", "\"user\": {\"uid\": " + UID + ", \"gid\": " + UID + "}");
        assertTrue(config.contains("\"uid\": " + UID));
        Files.writeString(dir.resolve("config.json"), config);
        return dir;
    }

    static JruncVm.Result ok(String... args) throws Exception {
        return vm.ok(args);
    }

    static Path podDir() {
        return vm.root().resolve("pods").resolve(POD);
    }

    /** The pids of the pod's virtiofsd processes: their socket path is in the pod's directory. */
    static Set<Long> virtiofsds() {
        String socketPrefix = "--socket-path=" + podDir() + "/";
        return ProcessHandle.allProcesses()
                .filter(h -> h.info().command().map(c -> c.endsWith("virtiofsd")).orElse(false))
                .filter(h -> h.info().arguments().map(a -> Arrays.stream(a).anyMatch(x -> x.startsWith(socketPrefix))).orElse(false))
                .filter(PodShareVmTest::notZombie)
                .map(ProcessHandle::pid).collect(Collectors.toCollection(TreeSet::new));
    }

    static boolean notZombie(ProcessHandle h) {
        return !Host.isZombieOrGone(h.pid());
    }

    /** The virtiofsd sockets in the pod's directory. */
    static Set<String> sockets() throws IOException {
        if (!Files.isDirectory(podDir())) {
            return Set.of();
        }
        try (Stream<Path> files = Files.list(podDir())) {
            return files.map(p -> p.getFileName().toString()).filter(n -> n.startsWith("fs") && n.endsWith(".sock"))
                    .collect(Collectors.toCollection(TreeSet::new));
        }
    }

    @Test
    @Order(1)
    void aFileWrittenInsideIsOnTheHostAtOnceWithTheContainersUid() throws Exception {
        ok("pod", "create", "--name", POD, "--memory", "256m");
        ok("create", "--pod", POD, "--name", "rw", "-v", shared + ":/data", "--volume", readonly + ":/ro:ro",
                bundle.toString(), "sleep", "3600");
        ok("start", "rw");
        assertEquals(2, sockets().size(), "one virtiofsd socket per share: " + sockets());
        assertFalse(virtiofsds().isEmpty(), "virtiofsd runs while the container does");

        JruncVm.Result r = ok("exec", "rw", "sh", "-c", "id -u; echo written-inside > /data/out.txt; cat /data/inside.txt");
        assertEquals(List.of(Integer.toString(UID), "inside"), r.out().lines().toList(), r.all());
        Path out = shared.resolve("out.txt");
        assertEquals("written-inside\n", Files.readString(out), "on the host as soon as the exec returned");
        assertEquals(UID, Files.getAttribute(out, "unix:uid"), "owned by the container's uid on the host");
        assertEquals(UID, Files.getAttribute(out, "unix:gid"));

        // and the other way: a file the host writes is read inside
        Files.writeString(shared.resolve("from-host.txt"), "from the host\n");
        assertEquals("from the host", ok("exec", "rw", "cat", "/data/from-host.txt").out().strip());
    }

    @Test
    @Order(2)
    void aReadOnlyShareRefusesWrites() throws Exception {
        JruncVm.Result r = vm.run("exec", "rw", "sh", "-c", "cat /ro/ro.txt; echo no > /ro/new.txt");
        assertNotEquals(0, r.code(), r.all());
        assertEquals("read-only content", r.out().strip(), r.all());
        assertTrue(r.err().contains("Read-only file system"), "EROFS: " + r.all());
        assertFalse(Files.exists(readonly.resolve("new.txt")), "nothing written on the host");
        JruncVm.Result rm = vm.run("exec", "rw", "rm", "/ro/ro.txt");
        assertNotEquals(0, rm.code(), rm.all());
        assertTrue(Files.exists(readonly.resolve("ro.txt")));
    }

    @Test
    @Order(3)
    void dotDotAndSymlinksPointingOutStayInside() throws Exception {
        // the control: the same reads reach a file that is inside, through .. and a symlink
        JruncVm.Result inside = ok("exec", "rw", "sh", "-c", "cat /data/sub/../inside.txt /data/self/inside.txt");
        assertEquals(List.of("inside", "inside"), inside.out().lines().toList(), inside.all());

        // the share is the named directory, not its parent
        assertEquals(List.of(".", "..", "abs", "from-host.txt", "inside.txt", "out.txt", "root", "self", "sub", "up"),
                ok("exec", "rw", "ls", "-a", "/data").out().lines().sorted().toList());

        String secretOnHost = parent.resolve("secret.txt").toString();
        String script = String.join("; ",
                "cat /data/secret.txt",
                "cat /data/../secret.txt",
                "cat /data/up/secret.txt",
                "cat /data/up/../secret.txt",
                "cat /data/root" + secretOnHost,
                "cat /data/abs/secret.txt",
                "cat /data/../../" + secretOnHost,
                "echo listing; ls -a /data/up/",
                "true");
        JruncVm.Result r = ok("exec", "rw", "sh", "-c", script);
        assertFalse(r.out().contains(SECRET) || r.err().contains(SECRET), "the file beside the share was read: " + r.all());
        // `up` is the container's own /: the guest resolves .. and symlinks, never the host
        List<String> listing = r.out().lines().dropWhile(l -> !l.equals("listing")).skip(1).toList();
        assertTrue(listing.contains("bin") && listing.contains("data") && !listing.contains("secret.txt")
                && !listing.contains("shared"), "`up` is the container's root: " + r.all());
        assertEquals(7, r.err().lines().filter(l -> l.contains("No such file or directory")).count(), r.all());
    }

    @Test
    @Order(4)
    void aFailedCreateLeavesNoVirtiofsd() throws Exception {
        Set<Long> before = virtiofsds();
        Set<String> socketsBefore = sockets();
        // the share's mount point under a file: the guest's runtime cannot make it, the create fails there
        JruncVm.Result r = vm.run("create", "--pod", POD, "--name", "bad", "-v", shared + ":/bin/busybox/x", bundle.toString());
        assertNotEquals(0, r.code(), r.all());
        assertEquals(1, r.err().lines().count(), r.all());
        assertEquals(before, virtiofsds(), "the failed create's virtiofsd ended");
        assertEquals(socketsBefore, sockets());
        assertFalse(Files.exists(podDir().resolve("containers/bad")));
    }

    @Test
    @Order(5)
    void aKilledCreateIsClearedByRmWithItsVirtiofsd() throws Exception {
        Set<Long> before = virtiofsds();
        Set<String> socketsBefore = sockets();
        Process create = vm.start("create", "--pod", POD, "--name", "killed", "-v", shared + ":/data", bundle.toString(), "sleep", "3600");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (virtiofsds().equals(before) && create.isAlive() && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertTrue(create.isAlive(), "killed while it was making the share");
        assertNotEquals(before, virtiofsds(), "its virtiofsd had started");
        create.destroyForcibly();
        create.waitFor(10, TimeUnit.SECONDS);
        ok("rm", "-f", "killed");
        assertEquals(before, virtiofsds(), "rm -f ended the killed create's virtiofsd");
        assertEquals(socketsBefore, sockets());
    }

    @Test
    @Order(6)
    void rmAndPodRmEndTheVirtiofsds() throws Exception {
        ok("rm", "-f", "rw");
        assertEquals(Set.of(), virtiofsds(), "rm -f of the container");
        assertEquals(Set.of(), sockets());
        assertEquals(Set.of("from-host.txt", "inside.txt", "out.txt"), Files.list(shared)
                .filter(p -> Files.isRegularFile(p, java.nio.file.LinkOption.NOFOLLOW_LINKS))
                .map(p -> p.getFileName().toString()).collect(Collectors.toSet()), "the host's files stay");

        ok("create", "--pod", POD, "--name", "kept", "-v", shared + ":/data", bundle.toString(), "sleep", "3600");
        ok("start", "kept");
        assertFalse(virtiofsds().isEmpty());

        // pod stop: the virtiofsd goes with qemu; pod start makes the share again with the container
        ok("pod", "stop", "-t", "1", POD);
        assertEquals(Set.of(), virtiofsds(), "pod stop");
        assertEquals(Set.of(), sockets());
        ok("pod", "start", POD);
        assertEquals(1, sockets().size(), sockets().toString());
        assertEquals("inside", ok("exec", "kept", "cat", "/data/inside.txt").out().strip(), "the share after pod start");

        ok("pod", "rm", "-f", POD);
        assertEquals(Set.of(), virtiofsds(), "pod rm -f");
        assertFalse(Files.exists(podDir()));
        assertTrue(Files.exists(shared.resolve("out.txt")), "the shared directory is the user's: it stays");
    }
}
