package io.jrunc.bindings;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The descriptor-relative calls against the real kernel: resolution held inside a root, errno kept. */
class RootedFilesTest {
    @TempDir
    Path tmp;
    int root;

    @BeforeEach
    void open() throws IOException {
        Files.createDirectories(tmp.resolve("etc"));
        Files.writeString(tmp.resolve("etc/hostname"), "inside\n");
        Files.createSymbolicLink(tmp.resolve("escape"), Path.of("/"));
        Files.createSymbolicLink(tmp.resolve("up"), Path.of("../../../.."));
        root = FileDescriptors.open(tmp.toString(), FileDescriptors.O_PATH | FileDescriptors.O_DIRECTORY | FileDescriptors.O_CLOEXEC);
    }

    @AfterEach
    void close() {
        FileDescriptors.closeQuietly(root);
    }

    @Test
    void linksToSlashAndDotDotResolveInsideTheRoot() {
        for (String path : new String[] {"/escape/etc/hostname", "up/up/etc/hostname", "../../etc/hostname", "/etc/hostname"}) {
            int fd = RootedFiles.openInRoot(root, path, FileDescriptors.O_PATH, 0);
            try {
                assertEquals(7, RootedFiles.stat(fd).size(), path); // "inside\n", not the host's file
            } finally {
                FileDescriptors.closeQuietly(fd);
            }
        }
        ErrnoException e = assertThrows(ErrnoException.class, () -> RootedFiles.openInRoot(root, "/no/such", FileDescriptors.O_PATH, 0));
        assertEquals(Errno.ENOENT, e.errno());
        assertEquals("/no/such", e.subject());
    }

    @Test
    void callsRelativeToADirectory() throws IOException {
        RootedFiles.mkdirAt(root, "d", 0700);
        RootedFiles.symlinkAt("target", root, "l");
        assertEquals("target", RootedFiles.readlinkAt(root, "l"));
        RootedFiles.setTimesAt(root, "l", 1_000_000_000L, 5, RootedFiles.AT_SYMLINK_NOFOLLOW);
        RootedFiles.Stat link = RootedFiles.statAt(root, "l", RootedFiles.AT_SYMLINK_NOFOLLOW);
        assertTrue(link.isSymlink());
        assertEquals(1_000_000_000L, link.mtimeSeconds());
        assertEquals(5, link.mtimeNanos());
        int fd = RootedFiles.openAt(root, "d", FileDescriptors.O_RDONLY | FileDescriptors.O_DIRECTORY, 0);
        try {
            RootedFiles.chmod(fd, 01751);
            RootedFiles.Stat d = RootedFiles.stat(fd);
            assertTrue(d.isDirectory());
            assertEquals(01751, d.mode() & 07777);
            assertEquals(Files.getAttribute(tmp.resolve("d"), "unix:uid"), (int) d.uid());
        } finally {
            FileDescriptors.closeQuietly(fd);
        }
        RootedFiles.renameAt(root, "d", root, "e", 0);
        assertTrue(Files.isDirectory(tmp.resolve("e")));
        ErrnoException exists = assertThrows(ErrnoException.class, () -> RootedFiles.mkdirAt(root, "e", 0700));
        assertEquals(Errno.EEXIST, exists.errno());
        RootedFiles.unlinkAt(root, "e", RootedFiles.AT_REMOVEDIR);
        RootedFiles.unlinkAt(root, "l", 0);
        assertFalse(Files.exists(tmp.resolve("l"), LinkOption.NOFOLLOW_LINKS));
    }
}
