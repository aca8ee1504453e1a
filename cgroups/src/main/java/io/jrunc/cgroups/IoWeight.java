package io.jrunc.cgroups;

/**
 * The OCI blockIO.weight (cgroup v1 blkio.weight, 10..1000) to cgroup v2 io.weight (1..10000), the
 * linear map runc uses ({@code ConvertBlkIOToIOWeightValue}): 10 → 1, 1000 → 10000. Only used when the
 * cgroup has no io.bfq.weight; BFQ takes the v1 value as it is.
 */
public final class IoWeight {
    private IoWeight() {
    }

    /** @return the io.weight, or 0 for weight 0 (unset). */
    public static long fromBlkioWeight(int weight) {
        if (weight == 0) {
            return 0;
        }
        return 1 + ((long) weight - 10) * 9999 / 990;
    }
}
