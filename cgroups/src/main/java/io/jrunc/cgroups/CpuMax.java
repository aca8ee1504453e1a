package io.jrunc.cgroups;

/**
 * The cgroup v2 cpu.max line {@code "<quota|max> <period>"} (runc's fs2 {@code setCPU}): written when
 * quota or period is set; a quota of 0 or less means "max" (no limit) and a period of 0 the kernel's
 * default, 100000 microseconds.
 */
public final class CpuMax {
    /** cgroup-v2.rst: "The default is "max 100000"". */
    public static final long DEFAULT_PERIOD = 100000;

    private CpuMax() {
    }

    /**
     * @param quota  OCI cpu.quota (int64 microseconds; absent = 0)
     * @param period OCI cpu.period (uint64 microseconds; absent = 0)
     * @return the line, or null when neither is set
     */
    public static String toFileValue(long quota, long period) {
        if (quota == 0 && period == 0) {
            return null;
        }
        String limit = quota > 0 ? Long.toString(quota) : "max";
        return limit + " " + Long.toUnsignedString(period == 0 ? DEFAULT_PERIOD : period);
    }
}
