package io.jrunc.cgroups;

/**
 * A limit in a cgroup v2 {@code .max}, {@code .low}, {@code .high} or {@code .min} file (runc's fs2
 * {@code numToStr}): {@code -1} is "max" (cgroup v1 used -1 for no limit), {@code 0} means unset and is
 * not written at all (null here), anything else is the decimal number.
 */
public final class CgroupV2Limit {
    private CgroupV2Limit() {
    }

    /** The file value, or null when nothing is to be written. */
    public static String toFileValue(long value) {
        if (value == 0) {
            return null;
        }
        if (value == -1) {
            return "max";
        }
        return Long.toString(value);
    }
}
