package io.jrunc.cgroups;

/**
 * The OCI pids.limit to a pids.max value (same file on cgroup v1 and v2; runc's {@code setPids}):
 * positive → the number, 0 → "1" (systemd cannot express 0, and runc keeps its drivers consistent),
 * negative → "max", absent → not written.
 */
public final class PidsLimit {
    private PidsLimit() {
    }

    /** @return the pids.max value, or null when {@code limit} is null (leave the file untouched) */
    public static String toFileValue(Long limit) {
        if (limit == null) {
            return null;
        }
        if (limit > 0) {
            return Long.toString(limit);
        }
        return limit == 0 ? "1" : "max";
    }
}
