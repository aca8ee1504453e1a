package io.jrunc.agent.api.tar;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The copy calls' tar format: round trips, the pax cases, names, damage, and GNU tar both ways. */
class TarFormatTest {
    @TempDir
    Path tmp;

    private static final String LONG = "d".repeat(120) + "/" + "é".repeat(70) + "/file";

    private static byte[] write(List<TarEntry> entries, List<byte[]> data) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (TarWriter w = new TarWriter(out)) {
            for (int i = 0; i < entries.size(); i++) {
                TarEntry e = entries.get(i);
                if (e.kind() == TarEntry.Kind.FILE) {
                    w.write(e, new ByteArrayInputStream(data.get(i)));
                } else {
                    w.write(e);
                }
            }
        }
        return out.toByteArray();
    }

    @Test
    void roundTripKeepsEveryField() throws IOException {
        byte[] content = new byte[1500];
        for (int i = 0; i < content.length; i++) {
            content[i] = (byte) (i * 7);
        }
        List<TarEntry> entries = List.of(
                TarEntry.directory(".", 0750, 0, 0, 1_700_000_000L, 0),
                TarEntry.file("./a", 04755, 1000, 100, 1_700_000_001L, 123_456_789, content.length),
                TarEntry.file("./" + LONG, 0600, 3_000_000_000L, 70_000_000L, 12L, 1, 0),
                TarEntry.symlink("./link", "/" + "t".repeat(150), 5, 6, 1_600_000_000L, 500_000_000),
                TarEntry.directory("./empty", 01777, 7, 8, 0, 0));
        List<byte[]> data = new ArrayList<>();
        for (TarEntry e : entries) {
            data.add(e.name().equals("./a") ? content : new byte[0]);
        }
        byte[] tar = write(entries, data);
        assertEquals(0, tar.length % 512);
        TarReader r = new TarReader(new ByteArrayInputStream(tar));
        for (TarEntry expected : entries) {
            TarEntry got = r.next();
            String name = expected.kind() == TarEntry.Kind.DIRECTORY ? expected.name() + "/" : expected.name();
            assertEquals(new TarEntry(name, expected.kind(), expected.mode(), expected.uid(), expected.gid(),
                    expected.mtimeSeconds(), expected.mtimeNanos(), expected.size(), expected.linkTarget()), got);
            if (got.kind() == TarEntry.Kind.FILE) {
                assertArrayEquals(data.get(entries.indexOf(expected)), r.content().readAllBytes());
            }
        }
        assertNull(r.next());
    }

    @Test
    void unreadDataIsSkipped() throws IOException {
        byte[] tar = write(List.of(TarEntry.file("./x", 0644, 0, 0, 1, 0, 700), TarEntry.file("./y", 0644, 0, 0, 1, 0, 3)),
                List.of(new byte[700], "abc".getBytes(StandardCharsets.US_ASCII)));
        TarReader r = new TarReader(new ByteArrayInputStream(tar));
        assertEquals("./x", r.next().name());
        assertEquals("./y", r.next().name());
        assertEquals("abc", new String(r.content().readAllBytes(), StandardCharsets.US_ASCII));
        assertNull(r.next());
    }

    @Test
    void damageAndTruncationAreErrors() throws IOException {
        byte[] tar = write(List.of(TarEntry.file("./x", 0644, 0, 0, 1, 0, 700)), List.of(new byte[700]));
        byte[] damaged = tar.clone();
        damaged[10] ^= 1;
        IOException bad = assertThrows(IOException.class, () -> new TarReader(new ByteArrayInputStream(damaged)).next());
        assertTrue(bad.getMessage().contains("checksum"), bad.getMessage());
        byte[] cut = java.util.Arrays.copyOf(tar, 512 + 100);
        TarReader r = new TarReader(new ByteArrayInputStream(cut));
        r.next();
        assertThrows(EOFException.class, () -> r.content().readAllBytes());
        assertThrows(EOFException.class, () -> new TarReader(new ByteArrayInputStream(java.util.Arrays.copyOf(tar, 300))).next());
        // end of input where a header would begin ends the stream
        assertNull(new TarReader(new ByteArrayInputStream(new byte[0])).next());
    }

    @Test
    void namesStayInsideTheTree() {
        assertEquals(List.of(), TarNames.components("."));
        assertEquals(List.of(), TarNames.components("./"));
        assertEquals(List.of("a", "b"), TarNames.components("./a//b/"));
        assertEquals("./a/b", TarNames.name(List.of("a", "b")));
        assertThrows(IllegalArgumentException.class, () -> TarNames.components("/etc/passwd"));
        assertThrows(IllegalArgumentException.class, () -> TarNames.components("./a/../../b"));
        assertThrows(IllegalArgumentException.class, () -> TarNames.components(".."));
    }

    @Test
    void paxRecordLengthsCountThemselves() throws IOException {
        for (int n = 0; n < 120; n++) {
            byte[] rec = PaxRecords.encode(java.util.Map.of("path", "p".repeat(n)));
            String s = new String(rec, StandardCharsets.UTF_8);
            assertEquals(rec.length, Integer.parseInt(s.substring(0, s.indexOf(' '))), s);
            assertEquals("p".repeat(n), PaxRecords.decode(rec).get("path"));
        }
        assertArrayEquals(new long[] {-2, 500_000_000}, PaxRecords.parseTime("-1.5"));
        assertEquals("12.000000001", PaxRecords.time(12, 1));
    }

    /** Times written and read by digits, against BigDecimal's arithmetic (what they were before). */
    @Test
    void paxTimesAsBigDecimalMakesThem() throws IOException {
        long[][] times = {{0, 0}, {12, 1}, {1700000000, 123456789}, {1700000000, 500000000}, {-1, 500000000},
                {-2, 500000000}, {-1, 1}, {-1700000000, 999999999}, {5, 100}, {Long.MAX_VALUE, 999999999},
                {Long.MIN_VALUE, 0}, {Long.MIN_VALUE + 1, 1}};
        for (long[] t : times) {
            java.math.BigDecimal exact = java.math.BigDecimal.valueOf(t[0]).add(java.math.BigDecimal.valueOf(t[1], 9));
            String text = t[1] == 0 ? Long.toString(t[0]) : exact.stripTrailingZeros().toPlainString();
            assertEquals(text, PaxRecords.time(t[0], (int) t[1]), t[0] + " s " + t[1] + " ns");
            assertArrayEquals(t, PaxRecords.parseTime(text), text);
        }
        for (String text : List.of("1.0000000009", "-1.0000000009", "-0.0000000001", "-3.000000000", "7.", "42", "-0",
                "0.5", "-0.5", "00012.340")) {
            java.math.BigDecimal exact = new java.math.BigDecimal(text.endsWith(".") ? text + "0" : text);
            java.math.BigDecimal seconds = exact.setScale(0, java.math.RoundingMode.FLOOR);
            long nanos = exact.subtract(seconds).movePointRight(9).setScale(0, java.math.RoundingMode.DOWN).longValueExact();
            assertArrayEquals(new long[] {seconds.longValueExact(), nanos}, PaxRecords.parseTime(text), text);
        }
        for (String bad : List.of("", "-", ".5", "1e3", "+1", "1.2.3", "x", "9223372036854775808", "-9223372036854775808.5")) {
            assertThrows(IOException.class, () -> PaxRecords.parseTime(bad), bad);
        }
    }

    /** What this writer makes, GNU tar extracts with the same names, modes, owners, times and targets. */
    @Test
    void gnuTarReadsWhatIsWritten() throws Exception {
        byte[] tar = write(List.of(
                        TarEntry.directory(".", 0755, 0, 0, 1_700_000_000L, 0),
                        TarEntry.file("./" + LONG, 0640, 1234, 4321, 1_700_000_001L, 250_000_000, 5),
                        TarEntry.symlink("./l", "../" + "t".repeat(130), 0, 0, 1_700_000_002L, 0)),
                List.of(new byte[0], "hello".getBytes(StandardCharsets.US_ASCII), new byte[0]));
        Path archive = tmp.resolve("a.tar");
        Files.write(archive, tar);
        Path out = Files.createDirectory(tmp.resolve("out"));
        run("tar", "--numeric-owner", "-xpf", archive.toString(), "-C", out.toString());
        Path file = out.resolve(LONG);
        assertEquals("hello", Files.readString(file));
        assertEquals("rw-r-----", java.nio.file.attribute.PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
        assertEquals(FileTime.from(1_700_000_001_250_000_000L, TimeUnit.NANOSECONDS), Files.getLastModifiedTime(file));
        if ("root".equals(System.getProperty("user.name"))) {
            assertEquals(1234, Files.getAttribute(file, "unix:uid"));
            assertEquals(4321, Files.getAttribute(file, "unix:gid"));
        }
        assertEquals("../" + "t".repeat(130), Files.readSymbolicLink(out.resolve("l")).toString());
        assertEquals(FileTime.from(1_700_000_002L, TimeUnit.SECONDS),
                Files.getLastModifiedTime(out.resolve("l"), LinkOption.NOFOLLOW_LINKS));
    }

    /** GNU tar's own formats (gnu with its long-name members, and posix) read back with every field. */
    @Test
    void readsGnuTarsFormats() throws Exception {
        Path src = Files.createDirectories(tmp.resolve("src").resolve("d".repeat(110)));
        Path file = Files.writeString(src.resolve("f".repeat(105)), "data");
        Files.setLastModifiedTime(file, FileTime.from(1_650_000_000_123_456_789L, TimeUnit.NANOSECONDS));
        Files.createSymbolicLink(src.resolve("l"), Path.of("x".repeat(140)));
        for (String format : List.of("gnu", "posix")) {
            Path archive = tmp.resolve(format + ".tar");
            run("tar", "--format=" + format, "-cf", archive.toString(), "-C", tmp.resolve("src").toString(), ".");
            TarReader r = new TarReader(Files.newInputStream(archive));
            boolean sawFile = false;
            boolean sawLink = false;
            for (TarEntry e; (e = r.next()) != null; ) {
                if (e.name().endsWith("f".repeat(105))) {
                    assertEquals("./" + "d".repeat(110) + "/" + "f".repeat(105), e.name(), format);
                    assertEquals("data", new String(r.content().readAllBytes(), StandardCharsets.US_ASCII));
                    assertEquals(1_650_000_000L, e.mtimeSeconds(), format);
                    if (format.equals("posix")) {
                        assertEquals(123_456_789, e.mtimeNanos());
                    }
                    sawFile = true;
                } else if (e.kind() == TarEntry.Kind.SYMLINK) {
                    assertEquals("x".repeat(140), e.linkTarget(), format);
                    sawLink = true;
                }
            }
            assertTrue(sawFile && sawLink, format);
        }
    }

    private static void run(String... command) throws Exception {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, p.waitFor(), String.join(" ", command) + ": " + output);
    }
}
