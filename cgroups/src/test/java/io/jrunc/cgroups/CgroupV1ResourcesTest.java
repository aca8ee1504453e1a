package io.jrunc.cgroups;

import static io.jrunc.cgroups.Resources.cpu;
import static io.jrunc.cgroups.Resources.memory;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The cgroup v1 writes, in order, against fake hierarchies shaped like this machine's (hybrid). */
class CgroupV1ResourcesTest {
    private static final long M = 1024 * 1024;

    @TempDir
    Path tmp;
    RecordingCgroupFiles fs;
    Map<String, Path> dirs;

    @BeforeEach
    void hierarchies() {
        fs = new RecordingCgroupFiles(tmp);
        dirs = new LinkedHashMap<>();
        for (String c : List.of("cpuset", "devices", "memory", "cpu", "cpuacct", "pids", "blkio", "freezer")) {
            dirs.put(c, tmp.resolve(c + "/ctr"));
        }
        for (String f : List.of("memory.limit_in_bytes", "memory.memsw.limit_in_bytes", "memory.soft_limit_in_bytes",
                "memory.swappiness", "memory.oom_control", "memory.usage_in_bytes", "memory.max_usage_in_bytes")) {
            fs.file("memory/ctr/" + f, "");
        }
        fs.file("memory/ctr/memory.limit_in_bytes", "9223372036854771712\n");
        for (String f : List.of("cpu.shares", "cpu.cfs_quota_us", "cpu.cfs_period_us", "cpu.cfs_burst_us", "cpu.idle",
                "cpu.rt_period_us", "cpu.rt_runtime_us")) {
            fs.file("cpu/ctr/" + f, "");
        }
        fs.file("cpuset/ctr/cpuset.cpus", "").file("cpuset/ctr/cpuset.mems", "");
        fs.file("devices/ctr/devices.allow", "").file("devices/ctr/devices.deny", "");
        fs.file("pids/ctr/pids.max", "");
        for (String f : List.of("blkio.bfq.weight", "blkio.bfq.weight_device", "blkio.throttle.read_bps_device",
                "blkio.throttle.write_bps_device", "blkio.throttle.read_iops_device", "blkio.throttle.write_iops_device")) {
            fs.file("blkio/ctr/" + f, "");
        }
        fs.file("unified/cgroup.controllers", "hugetlb").file("unified/cgroup.subtree_control", "")
                .file("unified/ctr/cgroup.controllers", "").file("unified/ctr/cgroup.procs", "");
    }

    private void apply(LinuxResources r) throws CgroupException {
        new CgroupV1Resources(fs, dirs, tmp.resolve("unified/ctr")).apply(r);
    }

    private List<String> writes() {
        return fs.writes.stream().map(w -> w.replace("/ctr/", "/")).toList();
    }

    @Test
    void raisingMemoryWritesMemswFirst() throws Exception {
        fs.file("memory/ctr/memory.limit_in_bytes", "" + 32 * M);
        apply(Resources.of(memory(64 * M, 128 * M)));
        assertEquals(List.of("memory/memory.memsw.limit_in_bytes=" + 128 * M, "memory/memory.limit_in_bytes=" + 64 * M), writes());
    }

    @Test
    void loweringMemoryWritesTheLimitFirst() throws Exception {
        fs.file("memory/ctr/memory.limit_in_bytes", "" + 256 * M);
        apply(Resources.of(memory(32 * M, 64 * M)));
        assertEquals(List.of("memory/memory.limit_in_bytes=" + 32 * M, "memory/memory.memsw.limit_in_bytes=" + 64 * M), writes());
    }

    @Test
    void aNewCgroupIsUnlimitedSoMemswGoesFirstOnlyIfAboveThatLimit() throws Exception {
        // current limit: unlimited (9223372036854771712), so memsw 64M < current: limit first
        apply(Resources.of(memory(32 * M, 64 * M)));
        assertEquals(List.of("memory/memory.limit_in_bytes=" + 32 * M, "memory/memory.memsw.limit_in_bytes=" + 64 * M), writes());
    }

    @Test
    void unlimitedMemoryWithoutSwapMakesMemswUnlimitedFirst() throws Exception {
        apply(Resources.of(memory(-1L, null)));
        assertEquals(List.of("memory/memory.memsw.limit_in_bytes=-1", "memory/memory.limit_in_bytes=-1"), writes());
    }

    @Test
    void v1TakesTheOciTotalDirectly() throws Exception {
        apply(Resources.of(memory(null, null, 96 * M)));
        assertEquals(List.of("memory/memory.memsw.limit_in_bytes=" + 96 * M), writes());
    }

    @Test
    void reservationOomKillerAndSwappiness() throws Exception {
        apply(Resources.of(new LinuxMemory(32 * M, 16 * M, null, null, null, 0L, true, null, null)));
        assertEquals(List.of("memory/memory.limit_in_bytes=" + 32 * M, "memory/memory.soft_limit_in_bytes=" + 16 * M,
                "memory/memory.oom_control=1", "memory/memory.swappiness=0"), writes());
    }

    @Test
    void swappinessAllOnesIsUnsetAndAbove100IsAnError() throws Exception {
        apply(Resources.of(new LinuxMemory(null, null, null, null, null, -1L, null, null, null)));
        assertEquals(List.of(), writes());
        CgroupException e = assertThrows(CgroupException.class,
                () -> apply(Resources.of(new LinuxMemory(null, null, null, null, null, 101L, null, null, null))));
        assertEquals("invalid memory swappiness value: 101 (valid range is 0-100)", e.getMessage());
    }

    @Test
    void ebusyOnTheLimitReportsUsage() {
        fs.file("memory/ctr/memory.usage_in_bytes", "5000\n").file("memory/ctr/memory.max_usage_in_bytes", "6000\n");
        fs.failNext("memory/ctr/memory.limit_in_bytes", "4096", Errno.EBUSY);
        CgroupException e = assertThrows(CgroupException.class, () -> apply(Resources.of(memory(4096L, null))));
        assertEquals("unable to set memory limit to 4096 (current usage: 5000, peak usage: 6000)", e.getMessage());
    }

    @Test
    void cpuInRuncsOrderWithSharesCheckedByReadingBack() throws Exception {
        apply(Resources.of(new LinuxCPU(512L, 50000L, 10000L, 100000L, 950000L, 1000000L, "0-1", "0", 0L)));
        assertEquals(List.of("cpuset/cpuset.cpus=0-1", "cpuset/cpuset.mems=0",
                "cpu/cpu.shares=512", "cpu/cpu.cfs_period_us=100000", "cpu/cpu.cfs_burst_us=10000",
                "cpu/cpu.cfs_quota_us=50000", "cpu/cpu.idle=0", "cpu/cpu.rt_period_us=1000000",
                "cpu/cpu.rt_runtime_us=950000"), writes());
    }

    @Test
    void sharesTheKernelClampsAreAnError() {
        RecordingCgroupFiles clamping = new RecordingCgroupFiles(tmp) {
            @Override
            public void write(Path file, String value) throws CgroupException {
                super.write(file, file.endsWith("cpu.shares") ? "262144" : value);
            }
        };
        CgroupException e = assertThrows(CgroupException.class,
                () -> new CgroupV1Resources(clamping, dirs, null).apply(Resources.of(cpu(1_000_000L, null, null, null, null))));
        assertEquals("the maximum allowed cpu-shares is 262144", e.getMessage());
    }

    @Test
    void aPeriodRefusedWithEinvalIsRetriedAfterTheQuota() throws Exception {
        fs.failNext("cpu/ctr/cpu.cfs_period_us", "10000", Errno.EINVAL);
        apply(Resources.of(cpu(null, 5000L, 10000L, null, null)));
        assertEquals(List.of("cpu/cpu.cfs_quota_us=5000", "cpu/cpu.cfs_period_us=10000"), writes());
    }

    @Test
    void aPeriodRefusedWithoutAQuotaFails() {
        fs.failNext("cpu/ctr/cpu.cfs_period_us", "10000", Errno.EINVAL);
        assertThrows(CgroupException.class, () -> apply(Resources.of(cpu(null, null, 10000L, null, null))));
    }

    @Test
    void aMissingBurstFileIsIgnored() throws Exception {
        fs.failNext("cpu/ctr/cpu.cfs_burst_us", null, Errno.ENOENT);
        apply(Resources.of(cpu(null, 5000L, null, 1000L, null)));
        assertEquals(List.of("cpu/cpu.cfs_quota_us=5000"), writes());
    }

    @Test
    void devicesDenyAllThenEachRuleInOrder() throws Exception {
        apply(Resources.devices(List.of(new LinuxDeviceCgroup(false, null, null, null, "rwm"),
                new LinuxDeviceCgroup(true, "c", 1L, 3L, "rwm"), new LinuxDeviceCgroup(true, "c", 136L, null, "rw"),
                new LinuxDeviceCgroup(false, "c", 1L, 3L, "m"))));
        assertEquals(List.of("devices/devices.deny=a", "devices/devices.deny=a *:* rwm", "devices/devices.allow=c 1:3 rwm",
                "devices/devices.allow=c 136:* rw", "devices/devices.deny=c 1:3 m"), writes());
    }

    @Test
    void pidsAndBlkioWithBfqFiles() throws Exception {
        LinuxThrottleDevice vda = new LinuxThrottleDevice(253L, 0L, 1000L);
        apply(new LinuxResources(null, null, null, new io.jrunc.spec.LinuxPids(0L),
                new LinuxBlockIO(300, null, null, List.of(vda), null, null, List.of(vda)), null, null, null, null));
        assertEquals(List.of("pids/pids.max=1", "blkio/blkio.bfq.weight=300",
                "blkio/blkio.throttle.read_bps_device=253:0 1000", "blkio/blkio.throttle.write_iops_device=253:0 1000"), writes());
    }

    @Test
    void hugetlbGoesToTheV2HierarchyOfAHybridHostWithoutAV1One() throws Exception {
        RecordingCgroupFiles kernelish = new RecordingCgroupFiles(tmp) {
            @Override
            public void write(Path file, String value) throws CgroupException {
                super.write(file, value);
                if (file.endsWith("cgroup.subtree_control") && value.equals("+hugetlb")) {
                    file("unified/ctr/cgroup.controllers", "hugetlb");
                    file("unified/ctr/hugetlb.2MB.max", "max");
                    file("unified/ctr/hugetlb.2MB.rsvd.max", "max");
                }
            }
        };
        new CgroupV1Resources(kernelish, dirs, tmp.resolve("unified/ctr"))
                .apply(Resources.hugetlb(List.of(new LinuxHugepageLimit("2MB", 2 * M))));
        assertEquals(List.of("unified/cgroup.subtree_control=+hugetlb", "unified/ctr/hugetlb.2MB.max=" + 2 * M,
                "unified/ctr/hugetlb.2MB.rsvd.max=" + 2 * M), kernelish.writes);
    }

    @Test
    void hugetlbUsesAV1HierarchyWhenThereIsOne() throws Exception {
        dirs.put("hugetlb", tmp.resolve("hugetlb/ctr"));
        fs.file("hugetlb/ctr/hugetlb.2MB.limit_in_bytes", "");
        apply(Resources.hugetlb(List.of(new LinuxHugepageLimit("2MB", 2 * M))));
        assertEquals(List.of("hugetlb/hugetlb.2MB.limit_in_bytes=" + 2 * M), writes(), "no rsvd file: skipped");
    }

    @Test
    void hugetlbWithNowhereToGoIsRuncsError() {
        CgroupException e = assertThrows(CgroupException.class, () -> new CgroupV1Resources(fs, dirs, null)
                .apply(Resources.hugetlb(List.of(new LinuxHugepageLimit("2MB", 2 * M)))));
        assertEquals("cannot set hugetlb limit: container could not join or create cgroup", e.getMessage());
    }

    @Test
    void unifiedIsRefusedOnV1AsRuncRefusesIt() {
        CgroupException e = assertThrows(CgroupException.class, () -> apply(Resources.unified(Map.of("memory.high", "1"))));
        assertEquals("invalid configuration: cannot use unified on cgroup v1", e.getMessage());
    }

    private static LinuxResources network(Long classID, List<LinuxInterfacePriority> priorities) {
        return new LinuxResources(null, null, null, null, null, null, new LinuxNetwork(classID, priorities), null, null);
    }

    @Test
    void networkGoesToNetClsAndNetPrio() throws Exception {
        dirs.put("net_cls", tmp.resolve("net_cls/ctr"));
        dirs.put("net_prio", tmp.resolve("net_prio/ctr"));
        fs.file("net_cls/ctr/net_cls.classid", "").file("net_prio/ctr/net_prio.ifpriomap", "");
        apply(network(0x100001L, List.of(new LinuxInterfacePriority("lo", 7L), new LinuxInterfacePriority("eth0", 3L))));
        assertEquals(List.of("net_cls/net_cls.classid=1048577", "net_prio/net_prio.ifpriomap=lo 7",
                "net_prio/net_prio.ifpriomap=eth0 3"), writes());
    }

    @Test
    void networkWithoutItsHierarchyNamesTheFieldAndTheController() {
        CgroupException e = assertThrows(CgroupException.class, () -> apply(network(1L, null)));
        assertEquals("linux.resources.network.classID: cannot set net_cls limit: container could not join or create"
                + " cgroup (this host has no net_cls hierarchy mounted)", e.getMessage());
        e = assertThrows(CgroupException.class, () -> apply(network(null, List.of(new LinuxInterfacePriority("lo", 1L)))));
        assertTrue(e.getMessage().startsWith("linux.resources.network.priorities: cannot set net_prio limit"), e.getMessage());
    }

    @Test
    void anEmptyNetworkWritesNothing() throws Exception {
        apply(network(0L, List.of()));
        assertEquals(List.of(), writes());
    }
}
