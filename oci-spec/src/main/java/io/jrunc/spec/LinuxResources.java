package io.jrunc.spec;

import java.util.List;
import java.util.Map;

/**
 * cgroup limits (config-linux.md, Control groups). Also the document {@code runc update --resources}
 * reads.
 *
 * @param devices device allow/deny rules, applied in order.
 * @param rdma keyed by RDMA device name.
 * @param unified cgroup v2 file name to value, written verbatim.
 */
public record LinuxResources(
        List<LinuxDeviceCgroup> devices,
        LinuxMemory memory,
        LinuxCPU cpu,
        LinuxPids pids,
        LinuxBlockIO blockIO,
        List<LinuxHugepageLimit> hugepageLimits,
        LinuxNetwork network,
        Map<String, LinuxRdma> rdma,
        Map<String, String> unified) {

    public LinuxResources {
        devices = Frozen.list(devices);
        hugepageLimits = Frozen.list(hugepageLimits);
        rdma = Frozen.map(rdma);
        unified = Frozen.map(unified);
    }
}
