package io.jrunc.vminit;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class CgroupSetupTest {
    @Test
    void cpuListsAreCountedAsTheKernelWritesThem() {
        assertEquals(1, CgroupSetup.cpuCount("0"));
        assertEquals(2, CgroupSetup.cpuCount("0-1"));
        assertEquals(5, CgroupSetup.cpuCount("0-3,5"));
        assertEquals(7, CgroupSetup.cpuCount("0,2-4,6-8"));
    }
}
