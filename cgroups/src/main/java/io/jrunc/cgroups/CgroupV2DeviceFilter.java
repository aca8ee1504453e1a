package io.jrunc.cgroups;

import io.jrunc.spec.LinuxDeviceCgroup;
import java.nio.file.Path;
import java.util.List;

/**
 * The hook through which cgroup v2 device access is enforced: cgroup v2 has no devices files, so the
 * OCI device rules become a BPF_PROG_TYPE_CGROUP_DEVICE program attached to the cgroup (deny by
 * default, then the rules in order, as runc's emulator). {@link BpfDeviceFilter} builds and attaches
 * it and is what {@link Cgroup#apply(io.jrunc.spec.LinuxResources)} uses; the hook exists so that tests
 * (and callers that must not touch the kernel) can substitute another. It is called at runc's point in
 * the write order (after cpu, before cpuset).
 */
@FunctionalInterface
public interface CgroupV2DeviceFilter {

    /**
     * Installs (or replaces) the device program of {@code cgroupDirectory}.
     *
     * @param rules the OCI rules, in order; never empty (no rules means the device setup is left alone)
     */
    void install(Path cgroupDirectory, List<LinuxDeviceCgroup> rules) throws CgroupException;

    /**
     * A filter that refuses, naming the cgroup, rather than leave a container with device rules it
     * does not enforce.
     */
    CgroupV2DeviceFilter UNAVAILABLE = (dir, rules) -> {
        throw new CgroupException("cannot apply " + rules.size() + " device rule(s) to " + dir
                + ": cgroup v2 device rules need the BPF device filter, and none was given");
    };
}
