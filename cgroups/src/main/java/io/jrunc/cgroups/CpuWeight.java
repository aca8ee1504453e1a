package io.jrunc.cgroups;

/**
 * cgroup v1 cpu.shares (the OCI cpu.shares, 2..262144, default 1024) to cgroup v2 cpu.weight
 * (1..10000, default 100), with the formula runc and crun use today (opencontainers/cgroups
 * {@code ConvertCPUSharesToCgroupV2Value}, crun {@code convert_shares_to_weight}): a quadratic in
 * log2(shares) through (2, 1), (1024, 100) and (262144, 10000). The older linear formula
 * {@code 1 + (shares - 2) * 9999 / 262142} is not used: it maps the default 1024 to 39, not 100.
 */
public final class CpuWeight {
    private CpuWeight() {
    }

    /**
     * @param shares OCI cpu.shares, a uint64 (negative longs are values above 2^63)
     * @return the weight, or 0 for shares 0 (unset: cpu.weight is not written)
     */
    public static long fromShares(long shares) {
        if (shares == 0) {
            return 0;
        }
        if (Long.compareUnsigned(shares, 2) <= 0) {
            return 1;
        }
        if (Long.compareUnsigned(shares, 262144) >= 0) {
            return 10000;
        }
        double l = Math.log(shares) / Math.log(2);
        double exponent = (l * l + 125 * l) / 612.0 - 7.0 / 34.0;
        return (long) Math.ceil(Math.pow(10, exponent));
    }
}
