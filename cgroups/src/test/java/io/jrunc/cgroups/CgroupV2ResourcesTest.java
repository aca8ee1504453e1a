package io.jrunc.cgroups;

import static io.jrunc.cgroups.Resources.cpu;
import static io.jrunc.cgroups.Resources.memory;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.jrunc.bindings.Errno;
import io.jrunc.spec.LinuxBlockIO;
import io.jrunc.spec.LinuxDeviceCgroup;
import io.jrunc.spec.LinuxHugepageLimit;
import io.jrunc.spec.LinuxPids;
import io.jrunc.spec.LinuxResources;
import io.jrunc.spec.LinuxThrottleDevice;
import io.jrunc.spec.LinuxWeightDevice;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The cgroup v2 writes, in order, against a fake cgroup tree: mnt (root) / a / ctr. */
class CgroupV2ResourcesTest {
    private static final long M = 1024 * 1024;
    private static final String ALL = "cpuset cpu io memory hugetlb pids rdma misc";
    private static final String[] FILES = {"pids.max", "memory.max", "memory.low", "memory.swap.max", "memory.current",
        "io.weight", "io.max", "cpu.weight", "cpu.max", "cpu.max.burst", "cpu.idle", "cpuset.cpus", "cpuset.mems",
        "hugetlb.2MB.max", "hugetlb.2MB.rsvd.max", "hugetlb.1GB.max", "hugetlb.1GB.rsvd.max", "memory.oom.group",
        "memory.high", "cgroup.procs", "cgroup.type", "cgroup.events", "cgroup.freeze"};

    @TempDir
    Path tmp;
    RecordingCgroupFiles fs;
    Path ctr;

    @BeforeEach
    void tree() {
        fs = new RecordingCgroupFiles(tmp);
        fs.file("mnt/cgroup.controllers", ALL).file("mnt/cgroup.subtree_control", ALL).file("mnt/cgroup.procs", "1\n");
        fs.file("mnt/a/cgroup.controllers", ALL).file("mnt/a/cgroup.subtree_control", ALL)
                .file("mnt/a/cgroup.type", "domain").file("mnt/a/cgroup.procs", "");
        fs.file("mnt/ctr-placeholder", "");
        fs.file("mnt/a/ctr/cgroup.controllers", ALL).file("mnt/a/ctr/cgroup.subtree_control", "");
        for (String f : FILES) {
            fs.file("mnt/a/ctr/" + f, "");
        }
        ctr = tmp.resolve("mnt/a/ctr");
    }

    private void apply(LinuxResources r) throws CgroupException {
        new CgroupV2Resources(fs, ctr).apply(r, CgroupV2DeviceFilter.UNAVAILABLE);
    }

    private List<String> writes() {
        return fs.writes.stream().map(w -> w.replace("mnt/a/ctr/", "")).toList();
    }

    @Test
    void everythingInRuncsOrderWithUnifiedLast() throws Exception {
        List<String> seen = new ArrayList<>();
        Map<String, String> unified = new LinkedHashMap<>();
        unified.put("memory.high", "max");
        unified.put("memory.oom.group", "1");
        LinuxResources r = new LinuxResources(
                List.of(new LinuxDeviceCgroup(false, null, null, null, "rwm")),
                memory(32 * M, 16 * M, 96 * M),
                new io.jrunc.spec.LinuxCPU(1024L, 50000L, null, 100000L, null, null, "0", "0", null),
                new LinuxPids(5L),
                new LinuxBlockIO(500, null, null, null, null, null, null),
                List.of(new LinuxHugepageLimit("2MB", 4 * M)), null, null, unified);
        new CgroupV2Resources(fs, ctr).apply(r, (dir, rules) -> {
            seen.add(dir + " " + rules.size());
            fs.writes.add("<devices>");
        });
        assertEquals(List.of("pids.max=5",
                "memory.swap.max=" + 64 * M, "memory.max=" + 32 * M, "memory.low=" + 16 * M,
                "io.weight=4950",
                "cpu.weight=100", "cpu.max=50000 100000",
                "<devices>",
                "cpuset.cpus=0", "cpuset.mems=0",
                "hugetlb.2MB.max=" + 4 * M, "hugetlb.2MB.rsvd.max=" + 4 * M,
                "memory.high=max", "memory.oom.group=1"), writes());
        assertEquals(List.of(ctr + " 1"), seen);
    }

    @Test
    void absentResourcesWriteNothing() throws Exception {
        apply(new LinuxResources(null, null, null, null, null, null, null, null, null));
        apply(Resources.of(memory(null, null)));
        apply(Resources.of(cpu(null, null, null, null, null)));
        assertEquals(List.of(), writes());
    }

    @Test
    void swapIsWrittenBeforeMemoryMax() throws Exception {
        apply(Resources.of(memory(32 * M, 96 * M)));
        assertEquals(List.of("memory.swap.max=" + 64 * M, "memory.max=" + 32 * M), writes());
    }

    @Test
    void swapEqualToMemoryDisablesSwapWithZero() throws Exception {
        apply(Resources.of(memory(32 * M, 32 * M)));
        assertEquals(List.of("memory.swap.max=0", "memory.max=" + 32 * M), writes());
    }

    @Test
    void unsetSwapLeavesTheFileUntouched() throws Exception {
        apply(Resources.of(memory(32 * M, null)));
        assertEquals(List.of("memory.max=" + 32 * M), writes());
    }

    @Test
    void unlimitedMemoryWithoutSwapMakesSwapUnlimitedToo() throws Exception {
        apply(Resources.of(memory(-1L, null)));
        assertEquals(List.of("memory.swap.max=max", "memory.max=max"), writes());
    }

    @Test
    void swapMinusOneIsMax() throws Exception {
        apply(Resources.of(memory(32 * M, -1L)));
        assertEquals(List.of("memory.swap.max=max", "memory.max=" + 32 * M), writes());
    }

    @Test
    void conversionErrorsWriteNothing() {
        CgroupException e = assertThrows(CgroupException.class, () -> apply(Resources.of(memory(null, 96 * M))));
        assertEquals("unable to set swap limit without memory limit", e.getMessage());
        assertThrows(CgroupException.class, () -> apply(Resources.of(memory(64 * M, 32 * M))));
        assertEquals(List.of(), writes());
    }

    @Test
    void missingSwapFileIsToleratedForMaxAndZeroOnly() throws Exception {
        fs.failNext("mnt/a/ctr/memory.swap.max", "max", Errno.ENOENT);
        apply(Resources.of(memory(32 * M, -1L)));
        fs.failNext("mnt/a/ctr/memory.swap.max", "0", Errno.ENOENT);
        apply(Resources.of(memory(32 * M, 32 * M)));
        assertEquals(List.of("memory.max=" + 32 * M, "memory.max=" + 32 * M), writes());

        fs.failNext("mnt/a/ctr/memory.swap.max", null, Errno.ENOENT);
        CgroupException e = assertThrows(CgroupException.class, () -> apply(Resources.of(memory(32 * M, 96 * M))));
        assertEquals("failed to write \"" + 64 * M + "\" to \"" + ctr.resolve("memory.swap.max") + "\": no such file or directory",
                e.getMessage());
        assertEquals(Errno.ENOENT, e.errno());
    }

    @Test
    void otherSwapErrorsAreNotTolerated() {
        fs.failNext("mnt/a/ctr/memory.swap.max", "max", Errno.EACCES);
        assertThrows(CgroupException.class, () -> apply(Resources.of(memory(32 * M, -1L))));
    }

    @Test
    void checkBeforeUpdateRejectsLimitsBelowUsage() throws Exception {
        fs.file("mnt/a/ctr/memory.current", "" + 40 * M);
        var m = new io.jrunc.spec.LinuxMemory(32 * M, null, null, null, null, null, null, null, true);
        CgroupException e = assertThrows(CgroupException.class, () -> apply(Resources.of(m)));
        assertEquals("rejecting memory limit " + 32 * M + " <= usage " + 40 * M, e.getMessage());
        assertEquals(List.of(), writes());
    }

    @Test
    void cpuMaxDefaultsAndMax() throws Exception {
        apply(Resources.of(cpu(null, -1L, null, null, null)));
        apply(Resources.of(cpu(null, null, 250000L, null, null)));
        apply(Resources.of(cpu(null, 20000L, null, null, 1L)));
        assertEquals(List.of("cpu.max=max 100000", "cpu.max=max 250000", "cpu.idle=1", "cpu.max=20000 100000"), writes());
    }

    @Test
    void burstRefusedWithEinvalIsRetriedAfterCpuMax() throws Exception {
        fs.failNext("mnt/a/ctr/cpu.max.burst", "30000", Errno.EINVAL);
        apply(Resources.of(cpu(null, 50000L, null, 30000L, null)));
        assertEquals(List.of("cpu.max=50000 100000", "cpu.max.burst=30000"), writes());
    }

    @Test
    void burstRefusedWithoutAQuotaToRaiseFails() {
        fs.failNext("mnt/a/ctr/cpu.max.burst", "30000", Errno.EINVAL);
        CgroupException e = assertThrows(CgroupException.class, () -> apply(Resources.of(cpu(null, null, null, 30000L, null))));
        assertEquals(Errno.EINVAL, e.errno());
        assertEquals("failed to write \"30000\" to \"" + ctr.resolve("cpu.max.burst") + "\": invalid argument", e.getMessage());
    }

    @Test
    void burstAcceptedAtOnceIsNotWrittenTwice() throws Exception {
        apply(Resources.of(cpu(null, 50000L, null, 30000L, null)));
        assertEquals(List.of("cpu.max.burst=30000", "cpu.max=50000 100000"), writes());
    }

    @Test
    void bfqTakesTheWeightAsItIsAndPerDeviceWeights() throws Exception {
        fs.file("mnt/a/ctr/io.bfq.weight", "default 100\n");
        apply(Resources.of(new LinuxBlockIO(500, null, List.of(new LinuxWeightDevice(8L, 0L, 300, null)),
                null, null, null, null)));
        assertEquals(List.of("io.bfq.weight=500", "io.bfq.weight=8:0 300"), writes());
    }

    @Test
    void oldBfqWithASingleNumberGetsNoDeviceWeights() throws Exception {
        fs.file("mnt/a/ctr/io.bfq.weight", "100\n");
        apply(Resources.of(new LinuxBlockIO(500, null, List.of(new LinuxWeightDevice(8L, 0L, 300, null)),
                null, null, null, null)));
        assertEquals(List.of("io.bfq.weight=500"), writes());
    }

    @Test
    void withoutBfqTheWeightIsConvertedAndThrottlesAreIoMaxLines() throws Exception {
        LinuxThrottleDevice vda = new LinuxThrottleDevice(253L, 0L, 1048576L);
        apply(Resources.of(new LinuxBlockIO(10, null, List.of(new LinuxWeightDevice(8L, 0L, 300, null)),
                List.of(vda), List.of(vda), List.of(new LinuxThrottleDevice(253L, 0L, 100L)),
                List.of(new LinuxThrottleDevice(253L, 0L, -1L)))));
        assertEquals(List.of("io.weight=1", "io.max=253:0 rbps=1048576", "io.max=253:0 wbps=1048576",
                "io.max=253:0 riops=100", "io.max=253:0 wiops=18446744073709551615"), writes());
    }

    @Test
    void pids() throws Exception {
        apply(Resources.pids(0L));
        apply(Resources.pids(-1L));
        apply(Resources.pids(null));
        apply(Resources.pids(42L));
        assertEquals(List.of("pids.max=1", "pids.max=max", "pids.max=42"), writes());
    }

    @Test
    void hugetlbStopsWritingRsvdAfterTheFirstEnoent() throws Exception {
        fs.failNext("mnt/a/ctr/hugetlb.2MB.rsvd.max", null, Errno.ENOENT);
        apply(Resources.hugetlb(List.of(new LinuxHugepageLimit("2MB", 4 * M), new LinuxHugepageLimit("1GB", 0L))));
        assertEquals(List.of("hugetlb.2MB.max=" + 4 * M, "hugetlb.1GB.max=0"), writes());
    }

    @Test
    void unifiedKeysMustBeBareFileNames() {
        CgroupException e = assertThrows(CgroupException.class, () -> apply(Resources.unified(Map.of("../memory.max", "1"))));
        assertEquals("unified resource \"../memory.max\" must be a file name (no slashes)", e.getMessage());
    }

    @Test
    void unifiedValuesAreWrittenLineByLine() throws Exception {
        fs.file("mnt/a/ctr/io.max", "");
        apply(Resources.unified(Map.of("io.max", "8:0 rbps=1\n8:16 wbps=2\n")));
        assertEquals(List.of("io.max=8:0 rbps=1", "io.max=8:16 wbps=2"), writes());
    }

    @Test
    void unifiedKeyOfAMissingControllerSaysSo() {
        CgroupException e = assertThrows(CgroupException.class, () -> apply(Resources.unified(Map.of("rdmax.max", "1"))));
        assertEquals("unified resource \"rdmax.max\" can't be set: controller \"rdmax\" not available", e.getMessage());
        CgroupException other = assertThrows(CgroupException.class, () -> apply(Resources.unified(Map.of("memory.nonexistent", "1"))));
        assertEquals("unable to set unified resource \"memory.nonexistent\": failed to write \"1\" to \""
                + ctr.resolve("memory.nonexistent") + "\": no such file or directory", other.getMessage());
    }

    @Test
    void aMissingControllerIsEnabledInTheAncestorsTopDown() throws Exception {
        fs.file("mnt/cgroup.subtree_control", "cpu memory").file("mnt/a/cgroup.controllers", "cpu memory")
                .file("mnt/a/cgroup.subtree_control", "cpu memory").file("mnt/a/ctr/cgroup.controllers", "cpu memory");
        // the fake kernel: enabling in a parent makes it appear in the child's cgroup.controllers
        RecordingCgroupFiles kernelish = new RecordingCgroupFiles(tmp) {
            @Override
            public void write(Path file, String value) throws CgroupException {
                super.write(file, value);
                if (file.getFileName().toString().equals("cgroup.subtree_control")) {
                    try {
                        Path child = file.getParent().equals(tmp.resolve("mnt")) ? tmp.resolve("mnt/a") : ctr;
                        file("" + tmp.relativize(child.resolve("cgroup.controllers")),
                                content("" + tmp.relativize(child.resolve("cgroup.controllers"))) + " " + value.substring(1));
                    } catch (java.io.IOException e) {
                        throw new AssertionError(e);
                    }
                }
            }
        };
        new CgroupV2Resources(kernelish, ctr).apply(Resources.pids(5L), CgroupV2DeviceFilter.UNAVAILABLE);
        assertEquals(List.of("mnt/cgroup.subtree_control=+pids", "mnt/a/cgroup.subtree_control=+pids",
                "mnt/a/ctr/pids.max=5"), kernelish.writes);
    }

    @Test
    void aControllerThatCannotBeEnabledIsAClearErrorBeforeAnyWrite() {
        fs.file("mnt/a/ctr/cgroup.controllers", "cpu memory").file("mnt/a/cgroup.procs", "1234\n"); // internal process
        fs.file("mnt/a/cgroup.subtree_control", "cpu memory");
        CgroupException e = assertThrows(CgroupException.class, () -> apply(Resources.pids(5L)));
        assertEquals("cannot set pids limits: controller \"pids\" not available in " + ctr
                + " (cgroup.controllers has no pids)", e.getMessage());
        assertEquals(List.of(), writes(), "an ancestor with processes of its own is not written");
    }

    @Test
    void deviceRulesWithoutAFilterAreRefused() {
        CgroupException e = assertThrows(CgroupException.class,
                () -> apply(Resources.devices(List.of(new LinuxDeviceCgroup(false, null, null, null, "rwm")))));
        assertEquals("cannot apply 1 device rule(s) to " + ctr
                + ": cgroup v2 device rules need the BPF device filter, and none was given", e.getMessage());
    }

    @Test
    void networkHasNoV2ControllerAndIsRefusedByField() {
        CgroupException e = assertThrows(CgroupException.class, () -> apply(new LinuxResources(null, null, null, null,
                null, null, new io.jrunc.spec.LinuxNetwork(5L, null), null, null)));
        assertEquals("linux.resources.network.classID: cannot set net_cls limit: cgroup v2 has no net_cls controller",
                e.getMessage());
        assertEquals(List.of(), writes(), "nothing written before the refusal");
    }
}
