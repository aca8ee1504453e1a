package io.jrunc.vminit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The figures calls' file reading and splitting, on text as the kernel writes it. */
class KernelFilesTest {
    @Test
    void aFieldIsTheNumberOnTheLineItStartsAndNoOther() {
        String events = "low 1\nhigh 2\nmax 3\noom 4\noom_kill 5\noom_group_kill 6\n";
        assertEquals(4, KernelFiles.field(events, "oom"), "not oom_kill's line");
        assertEquals(5, KernelFiles.field(events, "oom_kill"));
        assertEquals(6, KernelFiles.field(events, "oom_group_kill"));
        assertEquals(0, KernelFiles.field(events, "absent"));
        assertEquals(0, KernelFiles.field("", "low"));
        String meminfo = "MemTotal:        2030004 kB\nMemFree:          123456 kB\nMemAvailable:    1500000 kB\n";
        assertEquals(2030004, KernelFiles.field(meminfo, "MemTotal:"));
        assertEquals(1500000, KernelFiles.field(meminfo, "MemAvailable:"));
        assertEquals(7, KernelFiles.field("usage_usec 7", "usage_usec"), "a last line without its line feed");
    }

    @Test
    void wordsAndLinesSplitAsTheKernelSpacesThem() {
        assertEquals(List.of("/dev/sda", "partition", "1048572", "0", "-2"),
                KernelFiles.words("/dev/sda                                partition\t1048572\t\t0\t\t-2"));
        assertEquals(List.of("8:16", "rbytes=4096"), KernelFiles.words("  8:16 rbytes=4096 "));
        assertTrue(KernelFiles.words("").isEmpty());
        assertArrayEquals(new String[] {"a", "b"}, KernelFiles.lines("a\nb\n"));
        assertEquals(0, KernelFiles.lines("").length);
    }

    @Test
    void aFileIsReadWholeAndAnAbsentOneIsNull(@TempDir Path dir) throws Exception {
        String big = "x".repeat(10000) + "\n";
        Files.writeString(dir.resolve("big"), big);
        Files.writeString(dir.resolve("limit"), "max\n");
        Files.writeString(dir.resolve("count"), "12\n");
        assertEquals(big, KernelFiles.read(dir.toString(), "big"), "beyond the first buffer");
        assertNull(KernelFiles.read(dir.toString(), "absent"));
        assertNull(KernelFiles.number(dir.toString(), "limit"), "max is no limit");
        assertEquals(12L, KernelFiles.number(dir.toString(), "count"));
        assertNull(KernelFiles.number(dir.toString(), "absent"));
    }
}
