package io.jrunc.cgroups;

import io.jrunc.spec.LinuxBlockIO;
import io.jrunc.spec.LinuxCPU;
import io.jrunc.spec.LinuxDeviceCgroup;
import io.jrunc.spec.LinuxHugepageLimit;
import io.jrunc.spec.LinuxMemory;
import io.jrunc.spec.LinuxPids;
import io.jrunc.spec.LinuxResources;
import java.util.List;
import java.util.Map;

/** Small builders for OCI resources in tests (the records have many nullable components). */
final class Resources {
    private Resources() {
    }

    static LinuxMemory memory(Long limit, Long swap) {
        return new LinuxMemory(limit, null, swap, null, null, null, null, null, null);
    }

    static LinuxMemory memory(Long limit, Long reservation, Long swap) {
        return new LinuxMemory(limit, reservation, swap, null, null, null, null, null, null);
    }

    static LinuxCPU cpu(Long shares, Long quota, Long period, Long burst, Long idle) {
        return new LinuxCPU(shares, quota, burst, period, null, null, null, null, idle);
    }

    static LinuxCPU cpuset(String cpus, String mems) {
        return new LinuxCPU(null, null, null, null, null, null, cpus, mems, null);
    }

    static LinuxResources of(LinuxMemory memory) {
        return new LinuxResources(null, memory, null, null, null, null, null, null, null);
    }

    static LinuxResources of(LinuxCPU cpu) {
        return new LinuxResources(null, null, cpu, null, null, null, null, null, null);
    }

    static LinuxResources of(LinuxBlockIO io) {
        return new LinuxResources(null, null, null, null, io, null, null, null, null);
    }

    static LinuxResources pids(Long limit) {
        return new LinuxResources(null, null, null, new LinuxPids(limit), null, null, null, null, null);
    }

    static LinuxResources hugetlb(List<LinuxHugepageLimit> limits) {
        return new LinuxResources(null, null, null, null, null, limits, null, null, null);
    }

    static LinuxResources unified(Map<String, String> unified) {
        return new LinuxResources(null, null, null, null, null, null, null, null, unified);
    }

    static LinuxResources devices(List<LinuxDeviceCgroup> rules) {
        return new LinuxResources(rules, null, null, null, null, null, null, null, null);
    }
}
