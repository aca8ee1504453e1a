package io.jrunc.runtime;

import io.jrunc.spec.LinuxBlockIO;
import io.jrunc.spec.LinuxCPU;
import io.jrunc.spec.LinuxMemory;
import io.jrunc.spec.LinuxPids;
import io.jrunc.spec.LinuxResources;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * `update` merges the requested changes into the resources in force, field by field: a field present
 * in the change replaces the stored one, an absent field keeps it. Without the merge a swap-only
 * update would be converted without the memory limit it is relative to (crun #315, runc PR #4357).
 * As in runc, setting memory to -1 without a swap value makes swap unlimited too (otherwise cgroup v1
 * would refuse a limit above the stored memory+swap total).
 */
final class ResourceMerge {
    private ResourceMerge() {}

    static LinuxResources merge(LinuxResources stored, LinuxResources change) {
        if (stored == null) {
            stored = new LinuxResources(null, null, null, null, null, null, null, null, null);
        }
        return new LinuxResources(
                change.devices() != null ? change.devices() : stored.devices(),
                memory(stored.memory(), change.memory()),
                cpu(stored.cpu(), change.cpu()),
                change.pids() != null ? pids(stored.pids(), change.pids()) : stored.pids(),
                blockIO(stored.blockIO(), change.blockIO()),
                change.hugepageLimits() != null ? change.hugepageLimits() : stored.hugepageLimits(),
                change.network() != null ? change.network() : stored.network(),
                change.rdma() != null ? change.rdma() : stored.rdma(),
                unified(stored.unified(), change.unified()));
    }

    private static <T> T pick(T changed, T stored) {
        return changed != null ? changed : stored;
    }

    static LinuxMemory memory(LinuxMemory s, LinuxMemory c) {
        if (c == null) {
            return s;
        }
        Long swap = c.swap();
        if (c.limit() != null && c.limit() == -1 && swap == null) {
            swap = -1L;
        }
        if (s == null) {
            return new LinuxMemory(c.limit(), c.reservation(), swap, c.kernel(), c.kernelTCP(), c.swappiness(),
                    c.disableOOMKiller(), c.useHierarchy(), c.checkBeforeUpdate());
        }
        return new LinuxMemory(pick(c.limit(), s.limit()), pick(c.reservation(), s.reservation()),
                pick(swap, s.swap()), pick(c.kernel(), s.kernel()), pick(c.kernelTCP(), s.kernelTCP()),
                pick(c.swappiness(), s.swappiness()), pick(c.disableOOMKiller(), s.disableOOMKiller()),
                pick(c.useHierarchy(), s.useHierarchy()), pick(c.checkBeforeUpdate(), s.checkBeforeUpdate()));
    }

    static LinuxCPU cpu(LinuxCPU s, LinuxCPU c) {
        if (c == null) {
            return s;
        }
        if (s == null) {
            return c;
        }
        return new LinuxCPU(pick(c.shares(), s.shares()), pick(c.quota(), s.quota()), pick(c.burst(), s.burst()),
                pick(c.period(), s.period()), pick(c.realtimeRuntime(), s.realtimeRuntime()),
                pick(c.realtimePeriod(), s.realtimePeriod()), pick(c.cpus(), s.cpus()), pick(c.mems(), s.mems()),
                pick(c.idle(), s.idle()));
    }

    static LinuxPids pids(LinuxPids s, LinuxPids c) {
        return c.limit() != null || s == null ? c : s;
    }

    static LinuxBlockIO blockIO(LinuxBlockIO s, LinuxBlockIO c) {
        if (c == null) {
            return s;
        }
        if (s == null) {
            return c;
        }
        return new LinuxBlockIO(pick(c.weight(), s.weight()), pick(c.leafWeight(), s.leafWeight()),
                pick(c.weightDevice(), s.weightDevice()), pick(c.throttleReadBpsDevice(), s.throttleReadBpsDevice()),
                pick(c.throttleWriteBpsDevice(), s.throttleWriteBpsDevice()),
                pick(c.throttleReadIOPSDevice(), s.throttleReadIOPSDevice()),
                pick(c.throttleWriteIOPSDevice(), s.throttleWriteIOPSDevice()));
    }

    static Map<String, String> unified(Map<String, String> s, Map<String, String> c) {
        if (c == null) {
            return s;
        }
        Map<String, String> m = new LinkedHashMap<>(s == null ? Map.of() : s);
        m.putAll(c);
        return m;
    }
}
