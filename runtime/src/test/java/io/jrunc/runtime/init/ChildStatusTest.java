package io.jrunc.runtime.init;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import org.junit.jupiter.api.Test;

/** The Groups line of /proc/PID/status as create's check reads it (the kernel's own lines: ContainerTest and SeccompTest). */
class ChildStatusTest {
    @Test
    void groupsAreReadSorted() {
        assertArrayEquals(new int[0], ChildStatus.groups(""));
        assertArrayEquals(new int[0], ChildStatus.groups(" \t "));
        assertArrayEquals(new int[] {0}, ChildStatus.groups("0"));
        assertArrayEquals(new int[] {0, 1, 2, 3, 4, 6, 10, 11, 20, 26, 27},
                ChildStatus.groups("0 1 2 3 4 6 10 11 20 26 27 "));
        assertArrayEquals(new int[] {5, 7, 10, 4294967}, ChildStatus.groups("  10\t5 4294967 7"));
    }
}
