package io.jrunc.cgroups;

/**
 * The OCI memory.swap value is memory <em>plus</em> swap (cgroup v1's memory.memsw.limit_in_bytes);
 * cgroup v2's memory.swap.max is swap alone. This converts, exactly as runc does
 * (opencontainers/cgroups {@code ConvertMemorySwapToCgroupV2Value}, table B1 of the project's
 * reference notes), and turns the result into what is written to memory.swap.max (runc's fs2
 * {@code setMemory}).
 *
 * <p>Values are OCI int64 bytes: {@code -1} means unlimited, {@code 0} means unset (an absent value
 * reads as 0, as in runc).
 */
public final class MemorySwapLimit {
    private MemorySwapLimit() {
    }

    /**
     * B1, evaluated top-down: the swap-only limit for cgroup v2 (-1 = max, 0 = unset).
     *
     * @param swapTotal the OCI memory.swap (memory + swap)
     * @param memory    the OCI memory.limit
     */
    public static long toCgroupV2(long swapTotal, long memory) throws CgroupException {
        if (memory == -1 && swapTotal == 0) {
            return -1; // cgroup v1 compatibility: "set both memory and swap to unlimited"
        }
        if (swapTotal == -1 || swapTotal == 0) {
            return swapTotal;
        }
        if (memory == -1) {
            return swapTotal; // nothing to subtract
        }
        if (memory == 0) {
            throw new CgroupException("unable to set swap limit without memory limit");
        }
        if (memory < 0) {
            throw new CgroupException("invalid memory value: " + memory);
        }
        if (swapTotal < memory) {
            throw new CgroupException("memory+swap limit should be >= memory limit");
        }
        return swapTotal - memory;
    }

    /**
     * What to write to memory.swap.max, or null to leave it alone (B2): the converted value as
     * {@link CgroupV2Limit#toFileValue}, except that swap equal to memory (converted 0 with a positive
     * total) writes "0", which disables swap. Never an empty string: the kernel reads "" as 0 (runc #2410).
     */
    public static String memorySwapMax(long swapTotal, long memory) throws CgroupException {
        long swap = toCgroupV2(swapTotal, memory);
        String value = CgroupV2Limit.toFileValue(swap);
        if (value == null && swap == 0 && swapTotal > 0) {
            return "0";
        }
        return value;
    }

    /**
     * Whether an ENOENT from writing {@code value} to memory.swap.max may be ignored: only for "max" and
     * "0", which ask for what a kernel without swap accounting already has (runc PR #4188).
     */
    public static boolean missingFileTolerated(String value) {
        return value.equals("max") || value.equals("0");
    }
}
