package io.jrunc.vm.copy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrunc.agent.api.tar.TarEntry;
import io.jrunc.agent.api.tar.TarReader;
import io.jrunc.agent.api.tar.TarWriter;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The host's side: a tree round-trips with its attributes; a hostile stream stays in its directory. */
class HostTreesTest {
    @TempDir
    Path tmp;

    @Test
    void aTreeRoundTrips() throws IOException {
        Path src = Files.createDirectories(tmp.resolve("src/sub"));
        Files.writeString(src.resolve("f"), "data");
        Files.setAttribute(src.resolve("f"), "unix:mode", 02741);
        Files.createSymbolicLink(src.resolve("l"), Path.of("../f"));
        Files.setLastModifiedTime(src.resolve("f"), FileTime.from(1_400_000_000_123_456_789L, TimeUnit.NANOSECONDS));
        Files.setLastModifiedTime(tmp.resolve("src"), FileTime.from(1_400_000_100L, TimeUnit.SECONDS));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        TarWriter w = new TarWriter(out);
        HostTrees.archive(tmp.resolve("src"), false, w);
        w.finish();
        Path dst = Files.createDirectory(tmp.resolve("dst"));
        HostTrees.extract(dst, "copy", new TarReader(new ByteArrayInputStream(out.toByteArray())));
        Path copy = dst.resolve("copy");
        assertEquals("data", Files.readString(copy.resolve("sub/f")));
        assertEquals(02741, (Integer) Files.getAttribute(copy.resolve("sub/f"), "unix:mode") & 07777);
        assertEquals(FileTime.from(1_400_000_000_123_456_789L, TimeUnit.NANOSECONDS), Files.getLastModifiedTime(copy.resolve("sub/f")));
        assertEquals(FileTime.from(1_400_000_100L, TimeUnit.SECONDS), Files.getLastModifiedTime(copy));
        assertEquals("../f", Files.readSymbolicLink(copy.resolve("sub/l")).toString());
        try (var list = Files.list(copy.resolve("sub"))) {
            assertEquals(2, list.count()); // no temporary left
        }
    }

    @Test
    void aStreamCannotWriteThroughALinkItMade() throws IOException {
        Path outside = Files.createDirectory(tmp.resolve("outside"));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        TarWriter w = new TarWriter(out);
        w.write(TarEntry.directory(".", 0755, 0, 0, 1, 0));
        w.write(TarEntry.symlink("./a", outside.toString(), 0, 0, 1, 0));
        w.write(TarEntry.file("./a/evil", 0644, 0, 0, 1, 0, 1), new ByteArrayInputStream(new byte[1]));
        w.finish();
        Path dst = Files.createDirectory(tmp.resolve("dst"));
        IOException e = assertThrows(IOException.class, () ->
                HostTrees.extract(dst, "x", new TarReader(new ByteArrayInputStream(out.toByteArray()))));
        assertTrue(e.getMessage().contains("not a directory"), e.getMessage());
        assertFalse(Files.exists(outside.resolve("evil")));
        assertTrue(Files.isSymbolicLink(dst.resolve("x/a")));
        assertTrue(Files.exists(dst.resolve("x"), LinkOption.NOFOLLOW_LINKS));
    }
}
