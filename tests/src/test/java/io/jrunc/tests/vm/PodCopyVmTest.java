package io.jrunc.tests.vm;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * `jrunc-vm cp` on one real boot: a pod with two running containers (a, b) from a busybox image
 * whose root holds a link /escape -> / and a /etc/hostname of its own ("from-the-image"; the
 * containers see the pod's hostname file bound over it, the guest has the pod's file at its own
 * /etc/hostname). A tree with modes, owners, times, a link and a 3 MiB file (several 1 MiB calls)
 * goes in and comes back out unchanged; writes and reads through /escape and through ".." stay in
 * the container's root; a file copied into a is not in b; a created container gets a file before
 * it starts; a stopped container's root is still copied from; bad input is one line and exit 125.
 * Needs what PodVmTest needs (VmHost) and root (owners).
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class PodCopyVmTest {
    static final String POD = "copy-pod";
    static final String IMAGE_HOSTNAME = "from-the-image\n";

    static Path work;
    static Path bundle;
    static JruncVm vm;

    @BeforeAll
    static void setUp() throws Exception {
        VmHost.requirePods();
        io.jrunc.testsupport.Requirements.requireRoot("owners kept by cp are set with chown");
        work = Files.createTempDirectory("jrunc-vm-copy");
        vm = new JruncVm(work);
        bundle = PodVmTest.busyboxBundle(work.resolve("bundle"));
        Path rootfs = bundle.resolve("rootfs");
        for (String applet : List.of("stat", "readlink", "md5sum", "find")) {
            Files.createSymbolicLink(rootfs.resolve("bin").resolve(applet), Path.of("busybox"));
        }
        Files.writeString(rootfs.resolve("etc/hostname"), IMAGE_HOSTNAME);
        Files.createSymbolicLink(rootfs.resolve("escape"), Path.of("/"));
        Files.createDirectories(rootfs.resolve("deep"));
        Files.createSymbolicLink(rootfs.resolve("deep/up"), Path.of("../.."));
        Files.createDirectories(rootfs.resolve("streamed"));
        vm.ok("pod", "create", "--name", POD, "--hostname", "copyhost");
        vm.ok("create", "--pod", POD, "--name", "a", bundle.toString(), "sleep", "600");
        vm.ok("start", "a");
        vm.ok("create", "--pod", POD, "--name", "b", bundle.toString(), "sleep", "600");
        vm.ok("start", "b");
    }

    @AfterAll
    static void tearDown() throws Exception {
        if (vm != null && Files.exists(vm.root())) {
            for (JsonNode p : JruncVm.JSON.readTree(vm.run("pod", "ls", "--format", "json").out())) {
                vm.run("pod", "rm", "-f", p.path("name").asText());
            }
        }
        if (work != null) {
            io.jrunc.bindings.FileTrees.delete(work); // the trees copied out, the bundle, the state root
        }
    }

    static String exec(String container, String... cmd) throws Exception {
        List<String> args = new ArrayList<>(List.of("exec", container));
        args.addAll(List.of(cmd));
        return vm.ok(args.toArray(String[]::new)).out();
    }

    /** A host tree with what cp must keep: modes (setuid, sticky), owners, times with nanoseconds, a link. */
    static Path hostTree(Path dir) throws IOException {
        Path tree = Files.createDirectories(dir.resolve("sub/inner"));
        tree = dir;
        Files.writeString(tree.resolve("plain"), "plain text\n");
        Files.write(tree.resolve("sub/empty"), new byte[0]);
        byte[] big = new byte[3 * 1024 * 1024 + 123];
        new Random(7).nextBytes(big);
        Files.write(tree.resolve("sub/inner/big"), big);
        Files.writeString(tree.resolve("sub/tool"), "#!/bin/sh\n");
        Files.createSymbolicLink(tree.resolve("sub/link"), Path.of("../plain"));
        set(tree.resolve("plain"), 0640, 1234, 5678, 1_600_000_000_123_456_789L);
        set(tree.resolve("sub/empty"), 0600, 0, 0, 1_500_000_000_000_000_000L);
        set(tree.resolve("sub/inner/big"), 0644, 42, 43, 1_400_000_000_500_000_000L);
        set(tree.resolve("sub/tool"), 04755, 0, 0, 1_300_000_000_000_000_001L);
        Files.setAttribute(tree.resolve("sub/link"), "unix:uid", 77, LinkOption.NOFOLLOW_LINKS);
        Files.getFileAttributeView(tree.resolve("sub/link"), java.nio.file.attribute.BasicFileAttributeView.class,
                LinkOption.NOFOLLOW_LINKS).setTimes(FileTime.from(1_200_000_000L, TimeUnit.SECONDS), null, null);
        set(tree.resolve("sub/inner"), 01777, 9, 9, 1_100_000_000_000_000_000L);
        set(tree.resolve("sub"), 0711, 0, 0, 1_000_000_000_000_000_000L);
        set(tree, 0750, 0, 1000, 1_650_000_000_000_000_000L); // root-owned: the container has no CAP_DAC_OVERRIDE
        return tree;
    }

    static void set(Path p, int mode, int uid, int gid, long mtimeNanos) throws IOException {
        Files.setAttribute(p, "unix:uid", uid);
        Files.setAttribute(p, "unix:gid", gid);
        Files.setAttribute(p, "unix:mode", mode);
        Files.setLastModifiedTime(p, FileTime.from(mtimeNanos, TimeUnit.NANOSECONDS));
    }

    /** Every entry below {@code top}: relative name, type, mode, owner, mtime in ns, link target or content digest. */
    static List<String> describe(Path top) throws IOException {
        List<String> lines = new ArrayList<>();
        try (Stream<Path> walk = Files.walk(top)) {
            for (Path p : walk.sorted().toList()) {
                var a = Files.readAttributes(p, "unix:mode,uid,gid,lastModifiedTime", LinkOption.NOFOLLOW_LINKS);
                String what = Files.isSymbolicLink(p) ? "-> " + Files.readSymbolicLink(p)
                        : Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS) ? "dir"
                        : java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256")
                                .digest(Files.readAllBytes(p)));
                long mtime = ((FileTime) a.get("lastModifiedTime")).to(TimeUnit.NANOSECONDS);
                int mode = Files.isSymbolicLink(p) ? 0 : (Integer) a.get("mode") & 07777;
                lines.add(top.relativize(p) + " " + Integer.toOctalString(mode) + " " + a.get("uid") + ":" + a.get("gid")
                        + " " + mtime + " " + what);
            }
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new AssertionError(e);
        }
        return lines;
    }

    static void assertOneLine125(JruncVm.Result r, String... words) {
        assertEquals(125, r.code(), r.all());
        assertEquals(1, r.err().strip().lines().count(), r.all());
        assertFalse(r.err().contains("Exception") || r.err().contains("\tat "), r.all());
        for (String w : words) {
            assertTrue(r.err().contains(w), "stderr should name " + w + ": " + r.all());
        }
    }

    @Test
    @Order(1)
    void aTreeRoundTripsWithModesOwnersTimesAndLinks() throws Exception {
        Path tree = hostTree(work.resolve("tree"));
        List<String> original = describe(tree);
        vm.ok("cp", tree.toString(), "a:/data");
        // what the guest wrote, seen from inside the container
        assertEquals("750 0 1000 1650000000", exec("a", "stat", "-c", "%a %u %g %Y", "/data").strip());
        assertEquals("640 1234 5678 1600000000", exec("a", "stat", "-c", "%a %u %g %Y", "/data/plain").strip());
        assertEquals("4755 0 0 1300000000", exec("a", "stat", "-c", "%a %u %g %Y", "/data/sub/tool").strip());
        assertEquals("1777 9 9 1100000000", exec("a", "stat", "-c", "%a %u %g %Y", "/data/sub/inner").strip());
        assertEquals("../plain", exec("a", "readlink", "/data/sub/link").strip());
        assertEquals("77", exec("a", "stat", "-c", "%u", "/data/sub/link").strip());
        assertEquals(3 * 1024 * 1024 + 123, Long.parseLong(exec("a", "stat", "-c", "%s", "/data/sub/inner/big").strip()));
        // and back out, to a new name: everything as it was
        Path back = work.resolve("back");
        vm.ok("cp", "a:/data", back.toString());
        assertEquals(original, describe(back));
        // into an existing directory: under the source's name; "/." merges the contents
        Path into = Files.createDirectory(work.resolve("into"));
        vm.ok("cp", "a:data/sub", into.toString());
        assertArrayEquals(Files.readAllBytes(tree.resolve("sub/inner/big")), Files.readAllBytes(into.resolve("sub/inner/big")));
        vm.ok("cp", tree.resolve("sub").toString() + "/.", "a:/data");
        assertEquals("#!/bin/sh", exec("a", "cat", "/data/tool").strip());
        vm.ok("cp", tree.resolve("plain").toString(), "a:/data/sub/plain-again");
        assertEquals("640 1234 5678", exec("a", "stat", "-c", "%a %u %g", "/data/sub/plain-again").strip());
    }

    @Test
    @Order(2)
    void linksToSlashAndDotDotStayInTheContainer() throws Exception {
        Path file = Files.writeString(work.resolve("escapee"), "inside\n");
        vm.ok("cp", file.toString(), "a:/escape/x");
        assertEquals("inside", exec("a", "cat", "/x").strip()); // the container's /x, not the guest's
        vm.ok("cp", file.toString(), "a:/deep/up/deep/up/y"); // /deep/up is /
        assertEquals("inside", exec("a", "cat", "/y").strip());
        // reading: the container's root file, never the guest's /etc/hostname (the pod's "copyhost")
        Path out = work.resolve("hostname-via-escape");
        vm.ok("cp", "a:/escape/etc/hostname", out.toString());
        assertEquals(IMAGE_HOSTNAME, Files.readString(out));
        Path rel = work.resolve("hostname-via-dotdot");
        vm.ok("cp", "a:../../etc/hostname", rel.toString());
        assertEquals(IMAGE_HOSTNAME, Files.readString(rel));
        // the link itself is copied as a link; -L copies what it names
        Path link = work.resolve("escape-link");
        vm.ok("cp", "a:/escape", link.toString());
        assertEquals("/", Files.readSymbolicLink(link).toString());
        Path followed = work.resolve("deep-followed");
        vm.ok("cp", "-L", "a:/deep/up", followed.toString());
        assertEquals(IMAGE_HOSTNAME, Files.readString(followed.resolve("etc/hostname")));
    }

    @Test
    @Order(3)
    void aFileCopiedIntoAIsNotInB() throws Exception {
        Path file = Files.writeString(work.resolve("only-a"), "for a\n");
        vm.ok("cp", file.toString(), "a:/tmp-only-a");
        assertEquals("for a", exec("a", "cat", "/tmp-only-a").strip());
        JruncVm.Result inB = vm.run("exec", "b", "cat", "/tmp-only-a");
        assertNotEquals(0, inB.code(), inB.all());
        assertOneLine125(vm.run("cp", "b:/tmp-only-a", work.resolve("from-b").toString()), "/tmp-only-a");
        assertFalse(Files.exists(work.resolve("from-b"), LinkOption.NOFOLLOW_LINKS));
    }

    @Test
    @Order(4)
    void aCreatedContainerGetsAFileBeforeItStarts() throws Exception {
        vm.ok("create", "--pod", POD, "--name", "c", bundle.toString(), "cat", "/given");
        Path file = Files.writeString(work.resolve("given"), "given before start\n");
        vm.ok("cp", file.toString(), "c:/given");
        vm.ok("start", "c");
        String logs = "";
        for (int i = 0; i < 100 && !logs.contains("given before start"); i++) {
            Thread.sleep(200);
            logs = vm.ok("logs", "c").out();
        }
        assertEquals("given before start\n", logs);
    }

    @Test
    @Order(5)
    void aStoppedContainersRootIsStillCopied() throws Exception {
        vm.ok("stop", "-t", "0", "b");
        Path out = work.resolve("from-stopped-b");
        vm.ok("cp", "b:/etc/hostname", out.toString());
        assertEquals(IMAGE_HOSTNAME, Files.readString(out));
    }

    @Test
    @Order(6)
    void badInputIsOneLineExit125AndLeavesNothing() throws Exception {
        Path file = Files.writeString(work.resolve("bad-input"), "x\n");
        Path tree = work.resolve("tree");
        Path dest = Files.createDirectory(work.resolve("bad-dest"));
        assertOneLine125(vm.run("cp", file.toString(), "nosuch:/x"), "nosuch");
        assertOneLine125(vm.run("cp", "nosuch:/x", dest.toString()), "nosuch");
        assertOneLine125(vm.run("cp", file.toString(), "bad name:/x"), "bad name");
        assertOneLine125(vm.run("cp", file.toString(), work.resolve("other").toString()), "CONTAINER:PATH");
        assertOneLine125(vm.run("cp", "a:/data/plain", "b:/plain"), "between containers");
        assertOneLine125(vm.run("cp", "/no/such/source", "a:/x"), "/no/such/source");
        assertOneLine125(vm.run("cp", "a:/no/such/source", dest.toString()), "/no/such/source");
        assertOneLine125(vm.run("cp", file.toString(), "a:/no/such/dir/x"), "/no/such/dir");
        assertOneLine125(vm.run("cp", file.toString(), "a:/newdir/"), "must exist");
        assertOneLine125(vm.run("cp", tree.toString(), "a:/tmp-only-a"), "cannot copy a directory");
        assertOneLine125(vm.run("cp", file.toString(), "a:"), "empty");
        assertOneLine125(vm.run("cp", "a:/data", dest.resolve("missing/below").toString()), "no such directory");
        try (Stream<Path> left = Files.list(dest)) {
            assertEquals(List.of(), left.toList(), "nothing written on the host");
        }
        assertFalse(exec("a", "ls", "-a", "/").contains(".jrunc-cp-"), "no temporary left in the container");
        assertEquals("", exec("a", "find", "/", "-xdev", "-name", "newdir").strip());
    }

    /** "-": a tar stream from stdin into a directory, and a path to stdout as a tar stream GNU tar reads. */
    @Test
    @Order(7)
    void tarStreamsOnStdinAndStdout() throws Exception {
        Path src = Files.createDirectories(work.resolve("streamed/src/d"));
        Files.writeString(src.resolve("f"), "streamed in\n");
        Path archive = work.resolve("in.tar");
        run(new ProcessBuilder("tar", "-cf", archive.toString(), "-C", work.resolve("streamed").toString(), "src"));
        run(vm.builder("cp", "-", "a:/streamed").redirectInput(archive.toFile()));
        assertEquals("streamed in", exec("a", "cat", "/streamed/src/d/f").strip());
        assertOneLine125(vm.run("cp", "-", "a:/data/plain"), "must be a directory");

        Path out = work.resolve("out.tar");
        run(vm.builder("cp", "a:/data", "-").redirectOutput(out.toFile()));
        Path x = Files.createDirectory(work.resolve("untarred"));
        run(new ProcessBuilder("tar", "--numeric-owner", "-xpf", out.toString(), "-C", x.toString()));
        // what was not changed since the first case's copy comes out of GNU tar as it went in
        List<String> kept = List.of("plain ", "sub/empty ", "sub/inner ", "sub/inner/big ", "sub/link ", "sub/tool ");
        List<String> original = describe(work.resolve("tree")).stream().filter(l -> kept.stream().anyMatch(l::startsWith)).toList();
        List<String> untarred = describe(x.resolve("data")).stream().filter(l -> kept.stream().anyMatch(l::startsWith)).toList();
        assertEquals(6, original.size());
        assertEquals(original, untarred);
    }

    static void run(ProcessBuilder pb) throws Exception {
        pb.redirectError(ProcessBuilder.Redirect.INHERIT);
        if (pb.redirectInput() == ProcessBuilder.Redirect.PIPE) {
            pb.redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
        }
        if (pb.redirectOutput() == ProcessBuilder.Redirect.PIPE) {
            pb.redirectOutput(ProcessBuilder.Redirect.DISCARD);
        }
        Process p = pb.start();
        assertTrue(p.waitFor(3, TimeUnit.MINUTES), String.join(" ", pb.command()));
        assertEquals(0, p.exitValue(), String.join(" ", pb.command()));
    }

    @Test
    @Order(9)
    void aStoppedPodSaysWhy() throws Exception {
        vm.ok("pod", "stop", "-t", "0", POD);
        Path file = work.resolve("bad-input");
        assertOneLine125(vm.run("cp", file.toString(), "a:/x"), POD, "not running");
    }
}
