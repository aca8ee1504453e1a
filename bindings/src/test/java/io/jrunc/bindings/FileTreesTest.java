package io.jrunc.bindings;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** FileTrees.delete on real trees: links removed, never followed; FIFOs never opened; failures named. */
class FileTreesTest {
    @TempDir
    Path tmp;

    @Test
    void removesATreeButNothingItsLinksPointAt() throws IOException {
        Path outside = Files.createDirectories(tmp.resolve("outside/dir"));
        Files.writeString(outside.resolve("keep"), "x");
        Path tree = Files.createDirectories(tmp.resolve("tree/a/b/c"));
        Files.writeString(tree.resolve("file"), "y");
        Files.createSymbolicLink(tmp.resolve("tree/a/to-dir"), outside);
        Files.createSymbolicLink(tmp.resolve("tree/a/b/to-file"), outside.resolve("keep"));
        Files.createSymbolicLink(tmp.resolve("tree/dangling"), tmp.resolve("nowhere"));
        FileDescriptors.mkfifo(tmp.resolve("tree/a/fifo").toString(), 0600);

        // a FIFO opened for reading would block: the removal must finish anyway
        CompletableFuture.runAsync(() -> {
            try {
                FileTrees.delete(tmp.resolve("tree"));
            } catch (IOException e) {
                throw new RuntimeException(e);
            }
        }).orTimeout(20, TimeUnit.SECONDS).join();

        assertFalse(Files.exists(tmp.resolve("tree"), LinkOption.NOFOLLOW_LINKS));
        assertEquals("x", Files.readString(outside.resolve("keep")), "a link's target is kept");
    }

    @Test
    void aLinkGivenAsTheTreeIsRemovedAsALink() throws IOException {
        Path target = Files.createDirectories(tmp.resolve("target"));
        Files.writeString(target.resolve("keep"), "x");
        Path link = Files.createSymbolicLink(tmp.resolve("link"), target);
        FileTrees.delete(link);
        assertFalse(Files.exists(link, LinkOption.NOFOLLOW_LINKS));
        assertTrue(Files.exists(target.resolve("keep")));
    }

    @Test
    void absentIsNoError() throws IOException {
        FileTrees.delete(tmp.resolve("absent"));
        FileTrees.delete(tmp.resolve("absent/below"));
    }

    @Test
    void aFileIsRemovedToo() throws IOException {
        Path file = Files.writeString(tmp.resolve("file"), "x");
        FileTrees.delete(file);
        assertFalse(Files.exists(file));
    }

    /**
     * A mount point cannot be removed: the rest of the tree still goes, and the failure names the mount
     * point by its full path. In a mount namespace of the test's own thread (root).
     */
    @Test
    void goesOnPastWhatItCannotRemoveAndNamesIt() throws Exception {
        assumeTrue(Files.readString(Path.of("/proc/self/status")).matches("(?s).*\\nUid:\\s+0\\s.*"), "needs root");
        Path tree = Files.createDirectories(tmp.resolve("tree"));
        Path mountPoint = Files.createDirectories(tree.resolve("a-mount"));
        Files.createDirectories(tree.resolve("b/c"));
        Files.writeString(tree.resolve("z"), "z");
        CompletableFuture<FileSystemException> failure = new CompletableFuture<>();
        Thread.ofPlatform().start(() -> {
            try {
                FsContext.unshare();
                Namespaces.unshare(Namespaces.CLONE_NEWNS);
                Mounts.mount(null, "/", null, Mounts.MS_REC | Mounts.MS_PRIVATE, null);
                Mounts.mount("tmpfs", mountPoint.toString(), "tmpfs", 0, "size=1m");
                Files.writeString(mountPoint.resolve("inside"), "x");
                failure.complete(assertThrows(FileSystemException.class, () -> FileTrees.delete(tree)));
            } catch (Throwable t) {
                failure.completeExceptionally(t);
            }
        }).join();
        FileSystemException e = failure.get();
        assertEquals(mountPoint.toString(), e.getFile(), e.toString());
        assertTrue(e.getMessage().contains("busy"), e.getMessage());
        assertFalse(Files.exists(tree.resolve("b")), "the rest went");
        assertFalse(Files.exists(tree.resolve("z")), "the rest went");
        FileTrees.delete(tree); // the mount went with the thread's namespace
        assertFalse(Files.exists(tree));
    }
}
