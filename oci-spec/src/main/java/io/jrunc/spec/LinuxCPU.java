package io.jrunc.spec;

/**
 * CPU and cpuset controller settings (config-linux.md, CPU).
 *
 * @param quota microseconds of CPU time per period; -1 means no limit.
 * @param cpus cpuset list syntax, e.g. {@code 0-3,7}.
 * @param idle 0 or 1 (SCHED_IDLE for the cgroup).
 */
public record LinuxCPU(
        @Uint64 Long shares,
        Long quota,
        @Uint64 Long burst,
        @Uint64 Long period,
        Long realtimeRuntime,
        @Uint64 Long realtimePeriod,
        String cpus,
        String mems,
        Long idle) {
}
