package io.jrunc.cgroups;

import static io.jrunc.cgroups.CgroupV2Resources.notEmpty;
import static io.jrunc.cgroups.CgroupV2Resources.value;

import io.jrunc.bindings.Errno;
import io.jrunc.spec.LinuxBlockIO;
import io.jrunc.spec.LinuxCPU;
import io.jrunc.spec.LinuxDeviceCgroup;
import io.jrunc.spec.LinuxHugepageLimit;
import io.jrunc.spec.LinuxInterfacePriority;
import io.jrunc.spec.LinuxMemory;
import io.jrunc.spec.LinuxNetwork;
import io.jrunc.spec.LinuxResources;
import io.jrunc.spec.LinuxThrottleDevice;
import io.jrunc.spec.LinuxWeightDevice;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * Writes OCI resources into the v1 hierarchies of a container's cgroup, controller by controller in
 * runc's order (opencontainers/cgroups {@code fs.subsystems}: cpuset, devices, memory, cpu, pids,
 * blkio, hugetlb), each into the directory of the hierarchy that carries the controller. The freezer
 * is not a resource here: see {@link Cgroup#freeze}. cgroup v1 takes the OCI values as they are
 * (memory.swap is v1's memory+swap total already).
 *
 * <p>Hybrid hosts: hugetlb limits go to the cgroup v2 hierarchy when no v1 hierarchy has hugetlb
 * (runc fails there); everything else only to v1, and a unified map is refused as runc refuses it.
 */
final class CgroupV1Resources {
    private final CgroupFiles files;
    private final Map<String, Path> byController;
    private final Path unifiedDirectory;

    /**
     * @param byController     controller name to the cgroup's directory in the hierarchy carrying it
     * @param unifiedDirectory the cgroup's directory in the v2 hierarchy of a hybrid host, or null
     */
    CgroupV1Resources(CgroupFiles files, Map<String, Path> byController, Path unifiedDirectory) {
        this(files, byController, unifiedDirectory, false, null);
    }

    /** Rootless (runc's rule): device rules that cannot be written are ignored. */
    private final boolean rootless;
    /** Why a rootless container has no cgroup in some hierarchy, for the refusal of a limit there. */
    private final String leftOutBecause;

    CgroupV1Resources(CgroupFiles files, Map<String, Path> byController, Path unifiedDirectory, boolean rootless,
            String leftOutBecause) {
        this.files = files;
        this.byController = byController;
        this.unifiedDirectory = unifiedDirectory;
        this.rootless = rootless;
        this.leftOutBecause = leftOutBecause;
    }

    void apply(LinuxResources resources) throws CgroupException {
        LinuxResources r = AbsentAsEmpty.of(resources);
        if (!r.unified().isEmpty()) {
            throw new CgroupException("invalid configuration: cannot use unified on cgroup v1");
        }
        setCpuset(r.cpu());
        if (rootless) {
            try {
                setDevices(r.devices());
            } catch (CgroupException e) {
                // runc: a rootless container's device cgroup is not expected to work (the rules
                // cannot be written without root); the device nodes it gets are what it may use
            }
        } else {
            setDevices(r.devices());
        }
        setMemory(r.memory());
        setCpu(r.cpu());
        setPids(r);
        setBlkio(r.blockIO());
        setHugetlb(r.hugepageLimits());
        setNetwork(r.network());
    }

    /** The directory of a controller that has something to write; runc's error when there is none. */
    private Path dir(String controller) throws CgroupException {
        Path dir = byController.get(controller);
        if (dir == null) {
            String why = !rootless ? "" : " (rootless container: " + (leftOutBecause != null ? leftOutBecause
                    : "no " + controller + " hierarchy") + "; limits need a cgroup v2 subtree delegated to the user)";
            throw new CgroupException("cannot set " + controller + " limit: container could not join or create cgroup" + why);
        }
        return dir;
    }

    /**
     * net_cls.classid and net_prio.ifpriomap, as runc's fs NetCls and NetPrio write them. A host
     * without the hierarchy gets runc's error with the field in front: the runtime-spec says a runtime
     * MUST fail on a value it cannot apply (jrunc ignored these before, exiting 0).
     */
    void setNetwork(LinuxNetwork n) throws CgroupException {
        if (n == null) {
            return;
        }
        if (n.classID() != null && n.classID() != 0) {
            Path dir = networkDir("net_cls", "linux.resources.network.classID");
            write(dir, "net_cls.classid", Long.toString(n.classID()));
        }
        if (n.priorities() != null && !n.priorities().isEmpty()) {
            Path dir = networkDir("net_prio", "linux.resources.network.priorities");
            for (LinuxInterfacePriority p : n.priorities()) {
                write(dir, "net_prio.ifpriomap", p.name() + " " + (p.priority() == null ? 0 : p.priority()));
            }
        }
    }

    /** {@link #dir}, with the field in front of its error and the reason after it. */
    private Path networkDir(String controller, String field) throws CgroupException {
        try {
            return dir(controller);
        } catch (CgroupException e) {
            throw new CgroupException(field + ": " + e.getMessage() + " (this host has no " + controller
                    + " hierarchy mounted)");
        }
    }

    private void write(Path dir, String file, String value) throws CgroupException {
        files.write(dir.resolve(file), value);
    }

    void setCpuset(LinuxCPU c) throws CgroupException {
        if (c == null || (!notEmpty(c.cpus()) && !notEmpty(c.mems()))) {
            return;
        }
        Path dir = dir("cpuset");
        // a cpuset hierarchy mounted with "noprefix" has plain "cpus"/"mems"
        String prefix = files.exists(dir.resolve("cpuset.cpus")) ? "cpuset." : "";
        if (notEmpty(c.cpus())) {
            write(dir, prefix + "cpus", c.cpus());
        }
        if (notEmpty(c.mems())) {
            write(dir, prefix + "mems", c.mems());
        }
    }

    /**
     * Deny everything, then each rule in order (as runc's v1 devices controller ends up: the default
     * is deny and the rules are exceptions). A rule of type "a" switches the whole default.
     */
    void setDevices(List<LinuxDeviceCgroup> rules) throws CgroupException {
        if (rules.isEmpty()) {
            return;
        }
        Path dir = dir("devices");
        write(dir, "devices.deny", "a");
        for (LinuxDeviceCgroup rule : rules) {
            write(dir, DeviceRule.v1File(rule), DeviceRule.toV1Line(rule));
        }
    }

    void setMemory(LinuxMemory m) throws CgroupException {
        if (m == null) {
            return;
        }
        long limit = value(m.limit());
        long swap = value(m.swap());
        long reservation = value(m.reservation());
        boolean oomKillerOff = Boolean.TRUE.equals(m.disableOOMKiller());
        Long swappiness = m.swappiness();
        if (limit == 0 && swap == 0 && reservation == 0 && !oomKillerOff && (swappiness == null || swappiness == -1)) {
            return;
        }
        Path dir = dir("memory");
        setMemoryAndSwap(dir, limit, swap);
        if (reservation != 0) {
            write(dir, "memory.soft_limit_in_bytes", Long.toString(reservation));
        }
        if (oomKillerOff) {
            write(dir, "memory.oom_control", "1");
        }
        if (swappiness != null && swappiness != -1) { // all-ones: old Docker's "unset"
            if (Long.compareUnsigned(swappiness, 100) > 0) {
                throw new CgroupException("invalid memory swappiness value: " + Long.toUnsignedString(swappiness)
                        + " (valid range is 0-100)");
            }
            write(dir, "memory.swappiness", Long.toString(swappiness));
        }
    }

    /**
     * The kernel keeps memsw.limit_in_bytes >= limit_in_bytes at every step, so the order depends on
     * the current limit (runc's fs {@code setMemoryAndSwap}): a memsw above the current limit (or
     * unlimited) is written first, otherwise the limit is lowered first.
     */
    private void setMemoryAndSwap(Path dir, long limit, long swap) throws CgroupException {
        if (limit == -1 && swap == 0 && files.exists(dir.resolve("memory.memsw.limit_in_bytes"))) {
            swap = -1; // unlimited memory without a swap value: unlimited memory+swap too
        }
        if (limit != 0 && swap != 0) {
            long current = readUnsigned(dir.resolve("memory.limit_in_bytes"));
            if (swap == -1 || Long.compareUnsigned(current, swap) < 0) {
                setSwap(dir, swap);
                setLimit(dir, limit);
                return;
            }
        }
        setLimit(dir, limit);
        setSwap(dir, swap);
    }

    private void setLimit(Path dir, long limit) throws CgroupException {
        if (limit == 0) {
            return;
        }
        try {
            write(dir, "memory.limit_in_bytes", Long.toString(limit));
        } catch (CgroupException e) {
            if (e.errno() != Errno.EBUSY) {
                throw e;
            }
            // EBUSY: below what the cgroup uses now
            throw new CgroupException("unable to set memory limit to " + limit + " (current usage: "
                    + Long.toUnsignedString(readUnsigned(dir.resolve("memory.usage_in_bytes"))) + ", peak usage: "
                    + Long.toUnsignedString(readUnsigned(dir.resolve("memory.max_usage_in_bytes"))) + ")", Errno.EBUSY, e);
        }
    }

    private void setSwap(Path dir, long swap) throws CgroupException {
        if (swap != 0) {
            write(dir, "memory.memsw.limit_in_bytes", Long.toString(swap));
        }
    }

    void setCpu(LinuxCPU c) throws CgroupException {
        if (c == null) {
            return;
        }
        long shares = value(c.shares());
        long quota = value(c.quota());
        long period = value(c.period());
        long rtPeriod = value(c.realtimePeriod());
        long rtRuntime = value(c.realtimeRuntime());
        if (shares == 0 && quota == 0 && period == 0 && c.burst() == null && c.idle() == null
                && rtPeriod == 0 && rtRuntime == 0) {
            return;
        }
        Path dir = dir("cpu");
        if (shares != 0) {
            write(dir, "cpu.shares", Long.toUnsignedString(shares));
            long read = readUnsigned(dir.resolve("cpu.shares")); // the kernel clamps to [2, 262144]
            if (Long.compareUnsigned(shares, read) > 0) {
                throw new CgroupException("the maximum allowed cpu-shares is " + Long.toUnsignedString(read));
            } else if (Long.compareUnsigned(shares, read) < 0) {
                throw new CgroupException("the minimum allowed cpu-shares is " + Long.toUnsignedString(read));
            }
        }
        // A smaller period (or a larger burst) can be refused with EINVAL until the quota is written:
        // keep it and write it again after the quota.
        String retryPeriod = null;
        if (period != 0) {
            retryPeriod = Long.toUnsignedString(period);
            if (deferOnEinval(dir, "cpu.cfs_period_us", retryPeriod, quota != 0, false)) {
                retryPeriod = null;
            }
        }
        String retryBurst = null;
        if (c.burst() != null) {
            retryBurst = Long.toUnsignedString(c.burst());
            if (deferOnEinval(dir, "cpu.cfs_burst_us", retryBurst, quota != 0, true)) {
                retryBurst = null;
            }
        }
        if (quota != 0) {
            write(dir, "cpu.cfs_quota_us", Long.toString(quota));
            if (retryPeriod != null) {
                write(dir, "cpu.cfs_period_us", retryPeriod);
            }
            if (retryBurst != null) {
                write(dir, "cpu.cfs_burst_us", retryBurst);
            }
        }
        if (c.idle() != null) {
            write(dir, "cpu.idle", Long.toString(c.idle()));
        }
        // rt period and runtime depend on each other the same way
        String retryRtPeriod = null;
        if (rtPeriod != 0) {
            retryRtPeriod = Long.toUnsignedString(rtPeriod);
            if (deferOnEinval(dir, "cpu.rt_period_us", retryRtPeriod, rtRuntime != 0, false)) {
                retryRtPeriod = null;
            }
        }
        if (rtRuntime != 0) {
            write(dir, "cpu.rt_runtime_us", Long.toString(rtRuntime));
            if (retryRtPeriod != null) {
                write(dir, "cpu.rt_period_us", retryRtPeriod);
            }
        }
    }

    /**
     * Writes; true when done (or, with {@code missingIsFine}, when the file does not exist: cpu burst on
     * kernels before 5.14), false when refused with EINVAL and {@code retryLater}; otherwise throws.
     */
    private boolean deferOnEinval(Path dir, String file, String value, boolean retryLater, boolean missingIsFine)
            throws CgroupException {
        try {
            write(dir, file, value);
            return true;
        } catch (CgroupException e) {
            if (missingIsFine && e.errno() == Errno.ENOENT) {
                return true;
            }
            if (e.errno() == Errno.EINVAL && retryLater) {
                return false;
            }
            throw e;
        }
    }

    void setPids(LinuxResources r) throws CgroupException {
        String value = PidsLimit.toFileValue(r.pids() == null ? null : r.pids().limit());
        if (value != null) {
            write(dir("pids"), "pids.max", value);
        }
    }

    void setBlkio(LinuxBlockIO io) throws CgroupException {
        if (io == null) {
            return;
        }
        boolean any = value(io.weight()) != 0 || value(io.leafWeight()) != 0 || CgroupV2Resources.isIoSet(io);
        if (!any) {
            return;
        }
        Path dir = dir("blkio");
        // CFQ's files, or BFQ's when only BFQ is there (kernels without CFQ, such as this machine's)
        boolean cfq = files.exists(dir.resolve("blkio.weight"));
        String weightFile = cfq ? "blkio.weight" : "blkio.bfq.weight";
        String weightDeviceFile = cfq ? "blkio.weight_device" : "blkio.bfq.weight_device";
        if (value(io.weight()) != 0) {
            write(dir, weightFile, Integer.toString(io.weight()));
        }
        if (value(io.leafWeight()) != 0) {
            write(dir, "blkio.leaf_weight", Integer.toString(io.leafWeight()));
        }
        for (LinuxWeightDevice device : io.weightDevice()) {
            if (value(device.weight()) != 0) {
                write(dir, weightDeviceFile, device.major() + ":" + device.minor() + " " + device.weight());
            }
            if (value(device.leafWeight()) != 0) {
                write(dir, "blkio.leaf_weight_device", device.major() + ":" + device.minor() + " " + device.leafWeight());
            }
        }
        writeThrottles(dir, "blkio.throttle.read_bps_device", io.throttleReadBpsDevice());
        writeThrottles(dir, "blkio.throttle.write_bps_device", io.throttleWriteBpsDevice());
        writeThrottles(dir, "blkio.throttle.read_iops_device", io.throttleReadIOPSDevice());
        writeThrottles(dir, "blkio.throttle.write_iops_device", io.throttleWriteIOPSDevice());
    }

    private void writeThrottles(Path dir, String file, List<LinuxThrottleDevice> devices) throws CgroupException {
        for (LinuxThrottleDevice device : devices) {
            write(dir, file, device.major() + ":" + device.minor() + " " + Long.toUnsignedString(value(device.rate())));
        }
    }

    void setHugetlb(List<LinuxHugepageLimit> limits) throws CgroupException {
        if (limits.isEmpty()) {
            return;
        }
        Path dir = byController.get("hugetlb");
        if (dir == null && unifiedDirectory != null) {
            new CgroupV2Resources(files, unifiedDirectory).applyHugetlb(limits);
            return;
        }
        dir = dir("hugetlb");
        boolean rsvd = true;
        for (LinuxHugepageLimit limit : limits) {
            String prefix = "hugetlb." + limit.pageSize();
            String value = Long.toUnsignedString(value(limit.limit()));
            write(dir, prefix + ".limit_in_bytes", value);
            if (rsvd) {
                try {
                    write(dir, prefix + ".rsvd.limit_in_bytes", value);
                } catch (CgroupException e) {
                    if (e.errno() != Errno.ENOENT) {
                        throw e;
                    }
                    rsvd = false;
                }
            }
        }
    }

    private long readUnsigned(Path file) throws CgroupException {
        return CgroupNumbers.parseUnsigned(files.read(file), file);
    }
}
