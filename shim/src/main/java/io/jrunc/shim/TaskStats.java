package io.jrunc.shim;

/**
 * A task's cgroup figures, from which the task service builds containerd's metrics message (cgroups
 * v1 or v2 Metrics, after the host's mode or the guest's). -1 where the back end has no figure.
 *
 * @param cgroupV2 whether they come from a cgroup v2 hierarchy
 */
public record TaskStats(boolean cgroupV2, long cpuUsageNanos, long cpuUserNanos, long cpuSystemNanos,
                        long memoryUsageBytes, long memoryLimitBytes, long swapUsageBytes, long swapLimitBytes,
                        long pidsCurrent, long pidsLimit, long oomKills) {
}
