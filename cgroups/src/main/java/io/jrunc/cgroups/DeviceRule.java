package io.jrunc.cgroups;

import io.jrunc.spec.LinuxDeviceCgroup;

/**
 * One OCI device rule as a cgroup v1 devices.allow / devices.deny line, {@code "<type> <major>:<minor>
 * <access>"} (runc's {@code devices.Rule.CgroupString}): type absent → "a" (all), major/minor absent or
 * negative → "*", access absent or empty → "rwm" (as crun; the kernel would read an empty access as
 * "nothing", making an allow rule a no-op).
 */
public final class DeviceRule {
    private DeviceRule() {
    }

    public static String toV1Line(LinuxDeviceCgroup rule) {
        String type = rule.type() == null || rule.type().isEmpty() ? "a" : rule.type();
        String access = rule.access() == null || rule.access().isEmpty() ? "rwm" : rule.access();
        return type + " " + number(rule.major()) + ":" + number(rule.minor()) + " " + access;
    }

    /** devices.allow for allow rules, devices.deny otherwise (an absent allow is Go's false). */
    public static String v1File(LinuxDeviceCgroup rule) {
        return Boolean.TRUE.equals(rule.allow()) ? "devices.allow" : "devices.deny";
    }

    private static String number(Long value) {
        return value == null || value < 0 ? "*" : Long.toString(value);
    }
}
