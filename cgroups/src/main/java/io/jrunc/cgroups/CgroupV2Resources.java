package io.jrunc.cgroups;

import io.jrunc.bindings.Errno;
import io.jrunc.spec.LinuxBlockIO;
import io.jrunc.spec.LinuxCPU;
import io.jrunc.spec.LinuxHugepageLimit;
import io.jrunc.spec.LinuxMemory;
import io.jrunc.spec.LinuxResources;
import io.jrunc.spec.LinuxThrottleDevice;
import io.jrunc.spec.LinuxWeightDevice;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Writes OCI resources into one cgroup v2 directory in runc's order (opencontainers/cgroups
 * {@code fs2.Manager.Set}): pids, memory, io, cpu, devices (the BPF hook), cpuset, hugetlb, and the
 * unified map last so that it overrides. Absent values (null) leave their files alone; like runc, 0 is
 * "unset" for the numeric ones. Each controller a resource needs is first made available in the
 * ancestors' cgroup.subtree_control ({@link ControllerEnabler}); one that cannot be is an error naming
 * it, before anything is written for it.
 */
final class CgroupV2Resources {
    private final CgroupFiles files;
    private final Path dir;

    CgroupV2Resources(CgroupFiles files, Path dir) {
        this.files = files;
        this.dir = dir;
    }

    void apply(LinuxResources resources, CgroupV2DeviceFilter devices) throws CgroupException {
        LinuxResources r = AbsentAsEmpty.of(resources);
        refuseNetwork(r);
        Set<String> controllers = new LinkedHashSet<>(neededControllers(r));
        Set<String> optional = unifiedControllers(r.unified());
        optional.removeAll(controllers);
        controllers.addAll(optional);
        Set<String> missing = new ControllerEnabler(files, dir).enable(controllers);
        missing.removeAll(optional); // unified keys report a missing controller when their write fails, as runc
        if (!missing.isEmpty()) {
            String first = missing.iterator().next();
            throw new CgroupException("cannot set " + first + " limits: controller \"" + first
                    + "\" not available in " + dir + " (cgroup.controllers has no " + first + ")");
        }
        setPids(r);
        setMemory(r.memory());
        setIo(r.blockIO());
        setCpu(r.cpu());
        if (!r.devices().isEmpty()) {
            devices.install(dir, r.devices());
        }
        setCpuset(r.cpu());
        setHugetlb(r.hugepageLimits());
        setUnified(r.unified());
    }

    /**
     * net_cls and net_prio are cgroup v1 controllers with no v2 counterpart (the kernel's cgroup-v2.rst
     * leaves packet classification to the network stack): a value for them cannot be applied, and the
     * runtime-spec says a runtime MUST then fail (docs/cgroups.md).
     */
    static void refuseNetwork(LinuxResources r) throws CgroupException {
        if (r.network() == null) {
            return;
        }
        if (r.network().classID() != null && r.network().classID() != 0) {
            throw new CgroupException("linux.resources.network.classID: cannot set net_cls limit: cgroup v2 has no"
                    + " net_cls controller");
        }
        if (r.network().priorities() != null && !r.network().priorities().isEmpty()) {
            throw new CgroupException("linux.resources.network.priorities: cannot set net_prio limit: cgroup v2 has"
                    + " no net_prio controller");
        }
    }

    /**
     * Only the hugetlb limits, for the v2 hierarchy of a hybrid host whose v1 hierarchies lack hugetlb
     * (this project's machine): enables hugetlb in the ancestors and nothing else.
     */
    void applyHugetlb(List<LinuxHugepageLimit> limits) throws CgroupException {
        if (limits.isEmpty()) {
            return;
        }
        if (!new ControllerEnabler(files, dir).enable(Set.of("hugetlb")).isEmpty()) {
            throw new CgroupException("cannot set hugetlb limits: controller \"hugetlb\" not available in " + dir
                    + " (nor mounted as a cgroup v1 hierarchy)");
        }
        setHugetlb(limits);
    }

    /** The controllers the typed resources write to (the unified map is handled separately). */
    static Set<String> neededControllers(LinuxResources resources) {
        LinuxResources r = AbsentAsEmpty.of(resources);
        Set<String> needed = new LinkedHashSet<>();
        if (r.pids() != null && r.pids().limit() != null) {
            needed.add("pids");
        }
        LinuxMemory m = r.memory();
        if (m != null && (value(m.limit()) != 0 || value(m.reservation()) != 0 || value(m.swap()) != 0)) {
            needed.add("memory");
        }
        if (isIoSet(r.blockIO())) {
            needed.add("io");
        }
        LinuxCPU c = r.cpu();
        if (c != null && (value(c.shares()) != 0 || value(c.quota()) != 0 || value(c.period()) != 0
                || c.burst() != null || c.idle() != null)) {
            needed.add("cpu");
        }
        if (c != null && (notEmpty(c.cpus()) || notEmpty(c.mems()))) {
            needed.add("cpuset");
        }
        if (!r.hugepageLimits().isEmpty()) {
            needed.add("hugetlb");
        }
        return needed;
    }

    private static Set<String> unifiedControllers(Map<String, String> unified) {
        Set<String> controllers = new LinkedHashSet<>();
        for (String key : unified.keySet()) {
            int dot = key.indexOf('.');
            if (dot > 0 && !key.contains("/") && !key.startsWith("cgroup.")) {
                controllers.add(key.substring(0, dot));
            }
        }
        return controllers;
    }

    void setPids(LinuxResources r) throws CgroupException {
        String value = PidsLimit.toFileValue(r.pids() == null ? null : r.pids().limit());
        if (value != null) {
            write("pids.max", value);
        }
    }

    void setMemory(LinuxMemory m) throws CgroupException {
        if (m == null) {
            return;
        }
        long limit = value(m.limit());
        long reservation = value(m.reservation());
        long swapTotal = value(m.swap());
        if (limit == 0 && reservation == 0 && swapTotal == 0) {
            return;
        }
        if (Boolean.TRUE.equals(m.checkBeforeUpdate())) {
            checkMemoryUsage(limit, swapTotal);
        }
        String swap = MemorySwapLimit.memorySwapMax(swapTotal, limit);
        if (swap != null) {
            try {
                write("memory.swap.max", swap);
            } catch (CgroupException e) {
                // No swap accounting (CONFIG_MEMCG_SWAP off, swapaccount=0): asking for no swap or
                // unlimited swap is then already true; any other value is an error.
                if (e.errno() != Errno.ENOENT || !MemorySwapLimit.missingFileTolerated(swap)) {
                    throw e;
                }
            }
        }
        String max = CgroupV2Limit.toFileValue(limit);
        if (max != null) {
            write("memory.max", max);
        }
        String low = CgroupV2Limit.toFileValue(reservation);
        if (low != null) {
            write("memory.low", low);
        }
    }

    // runc's CheckMemoryUsage: best effort, a read failure skips the check.
    private void checkMemoryUsage(long limit, long swapTotal) throws CgroupException {
        if (limit <= 0 && swapTotal <= 0) {
            return;
        }
        long usage;
        try {
            usage = Long.parseUnsignedLong(files.read(dir.resolve("memory.current")).trim());
        } catch (CgroupException | NumberFormatException e) {
            return;
        }
        if (swapTotal > 0 && Long.compareUnsigned(swapTotal, usage) <= 0) {
            throw new CgroupException("rejecting memory+swap limit " + swapTotal + " <= usage " + Long.toUnsignedString(usage));
        }
        if (limit > 0 && Long.compareUnsigned(limit, usage) <= 0) {
            throw new CgroupException("rejecting memory limit " + limit + " <= usage " + Long.toUnsignedString(usage));
        }
    }

    static boolean isIoSet(LinuxBlockIO io) {
        return io != null && (value(io.weight()) != 0 || !io.weightDevice().isEmpty()
                || !io.throttleReadBpsDevice().isEmpty() || !io.throttleWriteBpsDevice().isEmpty()
                || !io.throttleReadIOPSDevice().isEmpty() || !io.throttleWriteIOPSDevice().isEmpty());
    }

    void setIo(LinuxBlockIO io) throws CgroupException {
        if (!isIoSet(io)) {
            return;
        }
        Path bfq = dir.resolve("io.bfq.weight");
        boolean hasBfq = (value(io.weight()) != 0 || !io.weightDevice().isEmpty()) && files.exists(bfq);
        boolean deviceWeights = hasBfq && bfqTakesDeviceWeights(bfq); // read before the weight is written
        int weight = value(io.weight());
        if (weight != 0) {
            if (hasBfq) {
                write("io.bfq.weight", Integer.toString(weight)); // BFQ takes the v1 range as it is
            } else {
                write("io.weight", Long.toString(IoWeight.fromBlkioWeight(weight)));
            }
        }
        if (deviceWeights) {
            for (LinuxWeightDevice device : io.weightDevice()) {
                if (device.weight() != null) {
                    write("io.bfq.weight", device.major() + ":" + device.minor() + " " + device.weight());
                }
            }
        }
        writeThrottles(io.throttleReadBpsDevice(), "rbps");
        writeThrottles(io.throttleWriteBpsDevice(), "wbps");
        writeThrottles(io.throttleReadIOPSDevice(), "riops");
        writeThrottles(io.throttleWriteIOPSDevice(), "wiops");
    }

    // Older kernels show a single number (the default weight) and take no per-device weights;
    // newer ones show "default N" lines.
    private boolean bfqTakesDeviceWeights(Path bfq) throws CgroupException {
        try {
            Long.parseLong(files.read(bfq).trim());
            return false;
        } catch (NumberFormatException e) {
            return true;
        }
    }

    private void writeThrottles(List<LinuxThrottleDevice> devices, String key) throws CgroupException {
        for (LinuxThrottleDevice device : devices) {
            write("io.max", device.major() + ":" + device.minor() + " " + key + "=" + Long.toUnsignedString(value(device.rate())));
        }
    }

    void setCpu(LinuxCPU c) throws CgroupException {
        if (c == null) {
            return;
        }
        long weight = CpuWeight.fromShares(value(c.shares()));
        long quota = value(c.quota());
        long period = value(c.period());
        if (c.idle() != null) {
            write("cpu.idle", Long.toString(c.idle()));
        }
        if (weight != 0) {
            write("cpu.weight", Long.toString(weight));
        }
        String burst = null;
        if (c.burst() != null) {
            burst = Long.toUnsignedString(c.burst());
            try {
                write("cpu.max.burst", burst);
                burst = null;
            } catch (CgroupException e) {
                // A burst above the current quota is refused (EINVAL) until cpu.max is raised: retry after it.
                if (e.errno() != Errno.EINVAL || quota == 0) {
                    throw e;
                }
            }
        }
        String max = CpuMax.toFileValue(quota, period);
        if (max != null) {
            write("cpu.max", max);
            if (burst != null) {
                write("cpu.max.burst", burst);
            }
        }
    }

    void setCpuset(LinuxCPU c) throws CgroupException {
        if (c == null) {
            return;
        }
        if (notEmpty(c.cpus())) {
            write("cpuset.cpus", c.cpus());
        }
        if (notEmpty(c.mems())) {
            write("cpuset.mems", c.mems());
        }
    }

    /** hugetlb.&lt;size&gt;.max and, while the kernel has it, hugetlb.&lt;size&gt;.rsvd.max with the same value. */
    void setHugetlb(List<LinuxHugepageLimit> limits) throws CgroupException {
        boolean rsvd = true;
        for (LinuxHugepageLimit limit : limits) {
            String prefix = "hugetlb." + limit.pageSize();
            String value = Long.toUnsignedString(value(limit.limit()));
            write(prefix + ".max", value);
            if (rsvd) {
                try {
                    write(prefix + ".rsvd.max", value);
                } catch (CgroupException e) {
                    if (e.errno() != Errno.ENOENT) {
                        throw e;
                    }
                    rsvd = false; // kernel before 5.7: no reservation accounting
                }
            }
        }
    }

    void setUnified(Map<String, String> unified) throws CgroupException {
        for (Map.Entry<String, String> entry : unified.entrySet()) {
            String key = entry.getKey();
            if (key.contains("/")) {
                throw new CgroupException("unified resource \"" + key + "\" must be a file name (no slashes)");
            }
            try {
                // one write per line, as runc's WriteFileByLine (io.max, for example, takes one device a write)
                for (String line : entry.getValue().split("\n")) {
                    if (!line.isEmpty()) {
                        write(key, line);
                    }
                }
            } catch (CgroupException e) {
                if (e.errno() == Errno.ENOENT || e.errno() == Errno.EPERM || e.errno() == Errno.EACCES) {
                    int dot = key.indexOf('.');
                    if (dot < 0) {
                        throw new CgroupException("unified resource \"" + key + "\" must be in the form CONTROLLER.PARAMETER", e);
                    }
                    String controller = key.substring(0, dot);
                    if (!controller.equals("cgroup") && !new ControllerEnabler(files, dir).available().contains(controller)) {
                        throw new CgroupException("unified resource \"" + key + "\" can't be set: controller \""
                                + controller + "\" not available", e.errno(), e);
                    }
                }
                throw new CgroupException("unable to set unified resource \"" + key + "\": " + e.getMessage(), e.errno(), e);
            }
        }
    }

    private void write(String file, String value) throws CgroupException {
        files.write(dir.resolve(file), value);
    }

    static long value(Long v) {
        return v == null ? 0 : v;
    }

    static int value(Integer v) {
        return v == null ? 0 : v;
    }

    static boolean notEmpty(String s) {
        return s != null && !s.isEmpty();
    }
}
