package io.jrunc.vminit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrunc.agent.api.tar.TarEntry;
import io.jrunc.agent.api.tar.TarReader;
import io.jrunc.agent.api.tar.TarWriter;
import io.jrunc.bindings.FileDescriptors;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import io.jrunc.testsupport.Requirements;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The guest's reading and writing of trees inside a container's root, run on the host against a
 * directory standing for the root: links to "/" and ".." lead back into it, never to the host's
 * files, and a file is never left half-written.
 */
class ContainerFilesTest {
    @TempDir
    Path tmp;
    Path root;
    int rootFd;

    @BeforeAll
    static void asRoot() {
        Requirements.requireRoot("owners set with fchownat, as the agent (the guest's PID 1, root) sets them");
    }

    @BeforeEach
    void root() throws IOException {
        root = Files.createDirectories(tmp.resolve("root"));
        Files.createDirectories(root.resolve("etc"));
        Files.writeString(root.resolve("etc/hostname"), "container\n");
        Files.createSymbolicLink(root.resolve("escape"), Path.of("/"));
        Files.createSymbolicLink(root.resolve("up"), Path.of("../../.."));
        rootFd = FileDescriptors.open(root.toString(), FileDescriptors.O_PATH | FileDescriptors.O_DIRECTORY | FileDescriptors.O_CLOEXEC);
    }

    @AfterEach
    void close() {
        FileDescriptors.closeQuietly(rootFd);
    }

    private static byte[] tar(TarEntry... entries) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        TarWriter w = new TarWriter(out);
        for (TarEntry e : entries) {
            if (e.kind() == TarEntry.Kind.FILE) {
                w.write(e, new ByteArrayInputStream(new byte[(int) e.size()]));
            } else {
                w.write(e);
            }
        }
        w.finish();
        return out.toByteArray();
    }

    private List<TarEntry> archive(String path, boolean follow) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        TarWriter w = new TarWriter(out);
        ContainerFiles.archive(ContainerFiles.openSource(rootFd, path, follow), w);
        w.finish();
        TarReader r = new TarReader(new ByteArrayInputStream(out.toByteArray()));
        List<TarEntry> entries = new ArrayList<>();
        for (TarEntry e; (e = r.next()) != null; ) {
            entries.add(e);
        }
        return entries;
    }

    @Test
    void writesThroughALinkToSlashLandInTheRoot() throws IOException {
        byte[] t = tar(TarEntry.file(".", 0640, 0, 0, 1_600_000_000L, 5, 3));
        ContainerFiles.extract(rootFd, "/escape", "x", new TarReader(new ByteArrayInputStream(t)));
        assertTrue(Files.isRegularFile(root.resolve("x")));
        assertFalse(Files.exists(Path.of("/x")), "the host's /x must not be written");
        assertEquals(FileTime.from(1_600_000_000_000_000_005L, TimeUnit.NANOSECONDS), Files.getLastModifiedTime(root.resolve("x")));
        ContainerFiles.extract(rootFd, "/up/up/etc", "y", new TarReader(new ByteArrayInputStream(t)));
        assertTrue(Files.isRegularFile(root.resolve("etc/y")));
    }

    @Test
    void readsThroughALinkToSlashReadTheRoot() throws IOException {
        List<TarEntry> entries = archive("/escape/etc/hostname", false);
        assertEquals(1, entries.size());
        assertEquals(10, entries.getFirst().size()); // "container\n", not the host's hostname file
        assertEquals(TarEntry.Kind.SYMLINK, archive("/escape", false).getFirst().kind());
        List<TarEntry> followed = archive("/escape", true);
        assertEquals(TarEntry.Kind.DIRECTORY, followed.getFirst().kind());
        assertTrue(followed.stream().anyMatch(e -> e.name().equals("./etc/hostname")));
        assertEquals(10, archive("../../../etc/hostname", false).getFirst().size());
    }

    @Test
    void aTreeKeepsModesOwnersTimesAndLinks() throws IOException {
        byte[] t = tar(TarEntry.directory(".", 0750, 12, 34, 1_500_000_000L, 0),
                TarEntry.file("./f", 04711, 56, 78, 1_500_000_001L, 0, 10),
                TarEntry.symlink("./l", "/etc/hostname", 9, 10, 1_500_000_002L, 0),
                TarEntry.directory("./d", 01777, 0, 0, 1_500_000_003L, 0));
        ContainerFiles.extract(rootFd, "/", "tree", new TarReader(new ByteArrayInputStream(t)));
        Path tree = root.resolve("tree");
        assertEquals(0750, (Integer) Files.getAttribute(tree, "unix:mode") & 07777);
        assertEquals(FileTime.from(1_500_000_000L, TimeUnit.SECONDS), Files.getLastModifiedTime(tree));
        assertEquals(04711, (Integer) Files.getAttribute(tree.resolve("f"), "unix:mode") & 07777);
        assertEquals(01777, (Integer) Files.getAttribute(tree.resolve("d"), "unix:mode") & 07777);
        assertEquals("/etc/hostname", Files.readSymbolicLink(tree.resolve("l")).toString());
        if ((Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid") == 0) {
            assertEquals(56, Files.getAttribute(tree.resolve("f"), "unix:uid"));
            assertEquals(78, Files.getAttribute(tree.resolve("f"), "unix:gid"));
            assertEquals(9, Files.getAttribute(tree.resolve("l"), "unix:uid", LinkOption.NOFOLLOW_LINKS));
        }
        List<TarEntry> back = archive("/tree", false);
        assertEquals(List.of(".", "./d", "./f", "./l"), back.stream().map(e -> e.name().replaceAll("/$", "").isEmpty() ? "." : e.name().replaceAll("/$", "")).toList());
        assertEquals(04711, back.get(2).mode());
        assertEquals(1_500_000_001L, back.get(2).mtimeSeconds());
    }

    @Test
    void aFailedCopyLeavesNoHalfFileAndNoTemporary() throws IOException {
        Files.writeString(root.resolve("keep"), "old");
        byte[] t = tar(TarEntry.file(".", 0644, 0, 0, 1, 0, 4000));
        byte[] cut = java.util.Arrays.copyOf(t, 512 + 1000);
        assertThrows(IOException.class, () ->
                ContainerFiles.extract(rootFd, "/", "keep", new TarReader(new ByteArrayInputStream(cut))));
        assertEquals("old", Files.readString(root.resolve("keep")));
        try (var list = Files.list(root)) {
            assertTrue(list.noneMatch(p -> p.getFileName().toString().startsWith(".jrunc-cp-")));
        }
    }

    @Test
    void typeConflictsAndMissingDirectoriesAreRefused() throws IOException {
        Files.createDirectories(root.resolve("dir"));
        ContainerFiles.CopyException dirOverFile = assertThrows(ContainerFiles.CopyException.class, () ->
                ContainerFiles.extract(rootFd, "/", "dir", new TarReader(new ByteArrayInputStream(
                        tar(TarEntry.file(".", 0644, 0, 0, 1, 0, 1))))));
        assertTrue(dirOverFile.getMessage().contains("cannot overwrite directory"), dirOverFile.getMessage());
        ContainerFiles.CopyException missing = assertThrows(ContainerFiles.CopyException.class, () ->
                ContainerFiles.openTarget(rootFd, "/no/such"));
        assertTrue(missing.notFound);
        assertNull(ContainerFiles.stat(rootFd, "/absent"));
        assertThrows(ContainerFiles.CopyException.class, () -> ContainerFiles.stat(rootFd, "/no/such/x"));
        ContainerFiles.CopyException dotdot = assertThrows(ContainerFiles.CopyException.class, () ->
                ContainerFiles.extract(rootFd, "/", "z", new TarReader(new ByteArrayInputStream(
                        tar(TarEntry.directory(".", 0755, 0, 0, 1, 0), TarEntry.file("./../../evil", 0644, 0, 0, 1, 0, 1))))));
        assertTrue(dotdot.getMessage().contains(".."), dotdot.getMessage());
        assertEquals(new String(Files.readAllBytes(root.resolve("etc/hostname")), StandardCharsets.UTF_8), "container\n");
    }
}
