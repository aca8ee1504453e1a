package io.jrunc.vminit;

import static org.junit.jupiter.api.Assertions.*;

import io.jrunc.testsupport.Requirements;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The swap header byte for byte; the guest kernel accepting it is SwapVmTest's check. */
class SwapHeaderTest {
    static final UUID ID = UUID.fromString("0123cafe-4567-89ab-cdef-0011223344ff");

    @Test
    void everyByteOfAVersion1HeaderPage() {
        byte[] page = SwapHeader.page(65536, 4096, ID, "jrunc-swap");
        byte[] expected = new byte[4096];
        HexFormat hex = HexFormat.of();
        // version 1, last_page 65535 (0xffff), nr_badpages 0: u32 little-endian at 1024, 1028, 1032
        System.arraycopy(hex.parseHex("01000000" + "ffff0000" + "00000000"), 0, expected, 1024, 12);
        // the UUID's bytes in text order at 1036
        System.arraycopy(hex.parseHex("0123cafe456789abcdef0011223344ff"), 0, expected, 1036, 16);
        // the label, NUL-padded to 16 bytes, at 1052
        System.arraycopy(hex.parseHex("6a72756e632d73776170000000000000"), 0, expected, 1052, 16);
        // "SWAPSPACE2" in the last 10 bytes
        System.arraycopy(hex.parseHex("5357415053504143453"  + "2"), 0, expected, 4086, 10);
        assertArrayEquals(expected, page);
    }

    @Test
    void lastPageIsAU32AndThePageSizeIsTheGuestsOwn() {
        byte[] page = SwapHeader.page(SwapHeader.MAX_PAGES, 16384, ID, "");
        assertEquals(16384, page.length);
        assertEquals("feffffff", HexFormat.of().formatHex(page, 1028, 1032));
        assertEquals("SWAPSPACE2", new String(page, 16374, 10, java.nio.charset.StandardCharsets.US_ASCII));
        assertEquals("01000000", HexFormat.of().formatHex(page, 1024, 1028));
    }

    @Test
    void refusesAreasUnderTwoPagesOrBeyondU32PagesAndLongLabels() {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> SwapHeader.page(1, 4096, ID, ""))
                .getMessage().contains("at least 2 pages"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> SwapHeader.page(SwapHeader.MAX_PAGES + 1, 4096, ID, ""))
                .getMessage().contains("at most"));
        assertThrows(IllegalArgumentException.class, () -> SwapHeader.page(16, 4096, ID, "seventeen-bytes!!"));
        assertEquals(4096, SwapHeader.page(2, 4096, ID, "sixteen-bytes-ok").length);
    }

    /**
     * util-linux's mkswap writes the same first page for the same UUID, label and size: an independent
     * writer of the format, not a copy of this one's assumptions.
     */
    @Test
    void theSamePageAsMkswapWrites(@TempDir Path dir) throws Exception {
        Path mkswap = Path.of("/usr/sbin/mkswap");
        Requirements.require(Files.isExecutable(mkswap), mkswap + ": install the Debian package util-linux (`make deps` does)");
        Path file = dir.resolve("area");
        try (var f = new java.io.RandomAccessFile(file.toFile(), "rw")) {
            f.setLength(64L * 4096);
        }
        Process p = new ProcessBuilder(mkswap.toString(), "-p", "4096", "-U", ID.toString(), "-L", "jrunc-swap",
                file.toString()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        assertTrue(p.waitFor(30, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue(), out);
        byte[] written = Arrays.copyOf(Files.readAllBytes(file), 4096);
        assertArrayEquals(written, SwapHeader.page(64, 4096, ID, "jrunc-swap"));
    }
}
