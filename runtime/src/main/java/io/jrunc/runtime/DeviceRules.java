package io.jrunc.runtime;

import io.jrunc.spec.LinuxDevice;
import io.jrunc.spec.LinuxDeviceCgroup;
import io.jrunc.spec.LinuxResources;
import io.jrunc.spec.Spec;
import java.util.ArrayList;
import java.util.List;

/**
 * The device cgroup rules a container gets, composed as runc composes them (libcontainer/specconv):
 * the config's linux.resources.devices in order, then the devices every container may use
 * (mknod of any device, the default device nodes, ptys, /dev/net/tun), then an allow rule for each
 * device the config creates (linux.devices). With runc's default config the first rule denies all,
 * so what is allowed is exactly this list.
 */
public final class DeviceRules {
    private DeviceRules() {}

    private static final List<LinuxDeviceCgroup> ALWAYS_ALLOWED = List.of(
            allow("c", null, null, "m"), allow("b", null, null, "m"),
            allow("c", 1L, 3L, "rwm"),    // /dev/null
            allow("c", 1L, 8L, "rwm"),    // /dev/random
            allow("c", 1L, 7L, "rwm"),    // /dev/full
            allow("c", 5L, 0L, "rwm"),    // /dev/tty
            allow("c", 1L, 5L, "rwm"),    // /dev/zero
            allow("c", 1L, 9L, "rwm"),    // /dev/urandom
            allow("c", 5L, 1L, "rwm"),    // /dev/console
            allow("c", 136L, null, "rwm"), // /dev/pts/*
            allow("c", 5L, 2L, "rwm"),    // /dev/ptmx
            allow("c", 10L, 200L, "rwm")); // /dev/net/tun

    private static LinuxDeviceCgroup allow(String type, Long major, Long minor, String access) {
        return new LinuxDeviceCgroup(true, type, major, minor, access);
    }

    /** The config's resources with the composed device rules in place of its own. */
    public static LinuxResources resourcesOf(Spec spec) {
        LinuxResources r = spec.linux() == null ? null : spec.linux().resources();
        List<LinuxDeviceCgroup> rules = new ArrayList<>();
        if (r != null && r.devices() != null) {
            rules.addAll(r.devices());
        }
        rules.addAll(ALWAYS_ALLOWED);
        if (spec.linux() != null && spec.linux().devices() != null) {
            for (LinuxDevice d : spec.linux().devices()) {
                String type = d.type().equals("u") ? "c" : d.type();
                if (!type.equals("p")) {
                    rules.add(allow(type, d.major(), d.minor(), "rwm"));
                }
            }
        }
        return r == null
                ? new LinuxResources(rules, null, null, null, null, null, null, null, null)
                : new LinuxResources(rules, r.memory(), r.cpu(), r.pids(), r.blockIO(), r.hugepageLimits(),
                        r.network(), r.rdma(), r.unified());
    }
}
