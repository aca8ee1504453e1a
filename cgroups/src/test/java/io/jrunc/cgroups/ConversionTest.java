package io.jrunc.cgroups;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrunc.spec.LinuxDeviceCgroup;
import org.junit.jupiter.api.Test;

/** The pure conversions, row by row (reference notes B1, B2, B4, B5). */
class ConversionTest {
    private static final long M = 1024 * 1024;

    // ---- B1: ConvertMemorySwapToCgroupV2Value, evaluated top-down
    @Test
    void b1Row1UnlimitedMemoryAndSwapZeroMeansUnlimitedSwap() throws Exception {
        assertEquals(-1, MemorySwapLimit.toCgroupV2(0, -1));
    }

    @Test
    void b1Row2SwapMaxOrUnsetIsKept() throws Exception {
        assertEquals(-1, MemorySwapLimit.toCgroupV2(-1, 32 * M));
        assertEquals(0, MemorySwapLimit.toCgroupV2(0, 32 * M));
        assertEquals(0, MemorySwapLimit.toCgroupV2(0, 0)); // before row 4: swap 0 without memory is fine
        assertEquals(-1, MemorySwapLimit.toCgroupV2(-1, 0));
    }

    @Test
    void b1Row3UnlimitedMemoryKeepsSwap() throws Exception {
        assertEquals(96 * M, MemorySwapLimit.toCgroupV2(96 * M, -1));
    }

    @Test
    void b1Row4SwapWithoutMemoryIsAnError() {
        CgroupException e = assertThrows(CgroupException.class, () -> MemorySwapLimit.toCgroupV2(96 * M, 0));
        assertEquals("unable to set swap limit without memory limit", e.getMessage());
    }

    @Test
    void b1Row5NegativeMemoryOtherThanMinusOneIsAnError() {
        CgroupException e = assertThrows(CgroupException.class, () -> MemorySwapLimit.toCgroupV2(96 * M, -2));
        assertEquals("invalid memory value: -2", e.getMessage());
    }

    @Test
    void b1Row6TotalBelowMemoryIsAnError() {
        CgroupException e = assertThrows(CgroupException.class, () -> MemorySwapLimit.toCgroupV2(16 * M, 32 * M));
        assertEquals("memory+swap limit should be >= memory limit", e.getMessage());
    }

    @Test
    void b1Row7OtherwiseSwapIsTotalMinusMemory() throws Exception {
        assertEquals(64 * M, MemorySwapLimit.toCgroupV2(96 * M, 32 * M));
        assertEquals(0, MemorySwapLimit.toCgroupV2(32 * M, 32 * M));
    }

    // ---- B2: what reaches memory.swap.max
    @Test
    void b2SwapEqualToMemoryWritesZeroNeverEmpty() throws Exception {
        assertEquals("0", MemorySwapLimit.memorySwapMax(32 * M, 32 * M));
    }

    @Test
    void b2UnsetSwapWritesNothing() throws Exception {
        assertNull(MemorySwapLimit.memorySwapMax(0, 32 * M));
        assertNull(MemorySwapLimit.memorySwapMax(0, 0));
    }

    @Test
    void b2MaxAndNumbers() throws Exception {
        assertEquals("max", MemorySwapLimit.memorySwapMax(-1, 32 * M));
        assertEquals("max", MemorySwapLimit.memorySwapMax(0, -1));
        assertEquals(Long.toString(64 * M), MemorySwapLimit.memorySwapMax(96 * M, 32 * M));
    }

    @Test
    void b2EnoentToleratedOnlyForMaxAndZero() {
        assertTrue(MemorySwapLimit.missingFileTolerated("max"));
        assertTrue(MemorySwapLimit.missingFileTolerated("0"));
        assertFalse(MemorySwapLimit.missingFileTolerated("67108864"));
    }

    @Test
    void b2NumToStr() {
        assertNull(CgroupV2Limit.toFileValue(0));
        assertEquals("max", CgroupV2Limit.toFileValue(-1));
        assertEquals("4096", CgroupV2Limit.toFileValue(4096));
    }

    // ---- B4: cpu
    @Test
    void sharesToWeightWithTheCurrentFormula() {
        assertEquals(0, CpuWeight.fromShares(0));
        assertEquals(1, CpuWeight.fromShares(1));
        assertEquals(1, CpuWeight.fromShares(2));
        assertEquals(100, CpuWeight.fromShares(1024));
        assertEquals(10000, CpuWeight.fromShares(262144));
        assertEquals(10000, CpuWeight.fromShares(1_000_000));
        assertEquals(10000, CpuWeight.fromShares(-1L)); // uint64 max
        assertEquals(2, CpuWeight.fromShares(3)); // not the old linear formula's 1
        assertEquals(39, 1 + ((1024 - 2) * 9999) / 262142, "the old formula, for contrast");
    }

    @Test
    void cpuMax() {
        assertNull(CpuMax.toFileValue(0, 0));
        assertEquals("50000 100000", CpuMax.toFileValue(50000, 0));
        assertEquals("max 100000", CpuMax.toFileValue(-1, 0));
        assertEquals("max 250000", CpuMax.toFileValue(0, 250000));
        assertEquals("20000 50000", CpuMax.toFileValue(20000, 50000));
    }

    // ---- B5
    @Test
    void ioWeightEndpoints() {
        assertEquals(0, IoWeight.fromBlkioWeight(0));
        assertEquals(1, IoWeight.fromBlkioWeight(10));
        assertEquals(10000, IoWeight.fromBlkioWeight(1000));
        assertEquals(4950, IoWeight.fromBlkioWeight(500));
    }

    @Test
    void pidsLimit() {
        assertNull(PidsLimit.toFileValue(null));
        assertEquals("1", PidsLimit.toFileValue(0L));
        assertEquals("max", PidsLimit.toFileValue(-1L));
        assertEquals("max", PidsLimit.toFileValue(-5L));
        assertEquals("5", PidsLimit.toFileValue(5L));
    }

    @Test
    void v1DeviceLines() {
        assertEquals("a *:* rwm", DeviceRule.toV1Line(new LinuxDeviceCgroup(false, null, null, null, "rwm")));
        assertEquals("devices.deny", DeviceRule.v1File(new LinuxDeviceCgroup(null, null, null, null, "rwm")));
        LinuxDeviceCgroup null3 = new LinuxDeviceCgroup(true, "c", 1L, 3L, "rwm");
        assertEquals("c 1:3 rwm", DeviceRule.toV1Line(null3));
        assertEquals("devices.allow", DeviceRule.v1File(null3));
        assertEquals("c 136:* rw", DeviceRule.toV1Line(new LinuxDeviceCgroup(true, "c", 136L, null, "rw")));
        assertEquals("b *:* rwm", DeviceRule.toV1Line(new LinuxDeviceCgroup(true, "b", -1L, -1L, null)));
    }

    @Test
    void hugepageSizeNames() {
        assertEquals("2MB", HugepageSizes.fromKilobytes(2048));
        assertEquals("1GB", HugepageSizes.fromKilobytes(1048576));
        assertEquals("64KB", HugepageSizes.fromKilobytes(64));
    }
}
