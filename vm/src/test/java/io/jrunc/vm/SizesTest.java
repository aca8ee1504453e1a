package io.jrunc.vm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class SizesTest {
    @Test
    void unitsWithOrWithoutB() throws VmException {
        assertEquals(4096, Sizes.parse("4096", "--memory"));
        assertEquals(4096, Sizes.parse("4096b", "--memory"));
        assertEquals(64L << 10, Sizes.parse("64k", "--memory"));
        assertEquals(64L << 10, Sizes.parse("64KB", "--memory"));
        assertEquals(512L << 20, Sizes.parse("512m", "--memory"));
        assertEquals(512L << 20, Sizes.parse("512Mb", "--memory"));
        assertEquals(2L << 30, Sizes.parse("2g", "--memory"));
        assertEquals(3L << 29, Sizes.parse("1.5g", "--memory"));
        assertEquals(1L << 40, Sizes.parse("1t", "--memory"));
    }

    @Test
    void garbageNamesTheFlag() {
        for (String bad : new String[] {"", "12x", "m", "-5m", "1.2.3g", "5 mib", "0x10"}) {
            VmException e = assertThrows(VmException.class, () -> Sizes.parse(bad, "--memory"), bad);
            assertTrue(e.getMessage().contains("--memory") && e.getMessage().contains("\"" + bad + "\""), e.getMessage());
            assertEquals(125, e.exitCode());
        }
        assertThrows(VmException.class, () -> Sizes.parse("99999999999p", "--memory"));
    }

    @Test
    void formatPicksTheLargestExactUnit() {
        assertEquals("512m", Sizes.format(512L << 20));
        assertEquals("1g", Sizes.format(1L << 30));
        assertEquals("1536m", Sizes.format(3L << 29));
        assertEquals("100", Sizes.format(100));
    }
}
