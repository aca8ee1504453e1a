package io.jrunc.cgroups;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** runc's cgroupfs path rules, on mount tables of the three kinds of host. */
class CgroupPathResolutionTest {

    /** This project's build machine: v1 controllers, cgroup2 at .../unified, the runtime in a memory sub-cgroup. */
    static final String HYBRID_MOUNTINFO = """
            31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755
            32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu
            33 31 0:30 / /sys/fs/cgroup/cpuacct rw,relatime - cgroup cgroup rw,cpuacct
            34 31 0:31 / /sys/fs/cgroup/cpuset rw,relatime - cgroup cgroup rw,cpuset
            35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory
            36 31 0:33 / /sys/fs/cgroup/devices rw,relatime - cgroup cgroup rw,devices
            40 31 0:37 / /sys/fs/cgroup/systemd rw,relatime - cgroup cgroup rw,name=systemd
            41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw
            """;
    static final String HYBRID_SELF_CGROUP = """
            9:name=systemd:/system.slice/runtime.service
            5:devices:/
            4:memory:/process_api/abc
            3:cpuset:/
            2:cpuacct:/
            1:cpu:/
            0::/system.slice/runtime.service
            """;

    static final String LEGACY_MOUNTINFO = """
            25 24 0:22 / /sys/fs/cgroup ro - tmpfs tmpfs ro,mode=755
            26 25 0:23 / /sys/fs/cgroup/systemd rw - cgroup cgroup rw,xattr,name=systemd
            27 25 0:24 / /sys/fs/cgroup/cpu,cpuacct rw - cgroup cgroup rw,cpu,cpuacct
            28 25 0:25 / /sys/fs/cgroup/net_cls,net_prio rw - cgroup cgroup rw,net_cls,net_prio
            29 25 0:26 / /sys/fs/cgroup/devices rw - cgroup cgroup rw,devices
            30 25 0:27 / /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory
            31 25 0:28 / /sys/fs/cgroup/foo rw - cgroup cgroup rw,name=foo
            """;
    static final String LEGACY_SELF_CGROUP = """
            8:name=foo:/
            7:hugetlb:/
            6:memory:/user.slice
            5:devices:/user.slice
            4:net_cls,net_prio:/
            3:cpu,cpuacct:/user.slice
            1:name=systemd:/user.slice/session-1.scope
            0::/user.slice/session-1.scope
            """;

    static final String UNIFIED_MOUNTINFO = """
            30 23 0:26 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:9 - cgroup2 cgroup2 rw,nsdelegate
            """;

    private static Map<String, String> resolve(String cgroupsPath, CgroupMode mode, String mountinfo, String selfCgroup)
            throws CgroupException {
        return CgroupsPath.of(cgroupsPath, "ctr").resolve(CgroupHierarchies.of(mode, mountinfo, selfCgroup)).directories();
    }

    @Test
    void hybridAbsolutePathIsBelowEveryHierarchyRootIncludingTheV2One() throws CgroupException {
        assertEquals(Map.of(
                "cpu", "/sys/fs/cgroup/cpu/jrunc/ctr",
                "cpuacct", "/sys/fs/cgroup/cpuacct/jrunc/ctr",
                "cpuset", "/sys/fs/cgroup/cpuset/jrunc/ctr",
                "memory", "/sys/fs/cgroup/memory/jrunc/ctr",
                "devices", "/sys/fs/cgroup/devices/jrunc/ctr",
                "name=systemd", "/sys/fs/cgroup/systemd/jrunc/ctr",
                "", "/sys/fs/cgroup/unified/jrunc/ctr"),
                resolve("/jrunc/ctr", CgroupMode.HYBRID, HYBRID_MOUNTINFO, HYBRID_SELF_CGROUP));
    }

    @Test
    void hybridRelativePathIsBelowTheRuntimesOwnCgroupPerV1HierarchyButBelowTheV2Root() throws CgroupException {
        Map<String, String> dirs = resolve("", CgroupMode.HYBRID, HYBRID_MOUNTINFO, HYBRID_SELF_CGROUP);
        assertEquals("/sys/fs/cgroup/memory/process_api/abc/ctr", dirs.get("memory"));
        assertEquals("/sys/fs/cgroup/cpu/ctr", dirs.get("cpu"));
        assertEquals("/sys/fs/cgroup/systemd/system.slice/runtime.service/ctr", dirs.get("name=systemd"));
        // runc quirk: GetOwnCgroupPath("") is the hybrid mount point, not the runtime's v2 cgroup.
        assertEquals("/sys/fs/cgroup/unified/ctr", dirs.get(""));
    }

    @Test
    void legacyJoinsRuncsControllersOnceEachComountedHierarchyAndLeavesOtherNamedOnesAlone() throws CgroupException {
        assertEquals(Map.of(
                "name=systemd", "/sys/fs/cgroup/systemd/user.slice/session-1.scope/x",
                "cpu,cpuacct", "/sys/fs/cgroup/cpu,cpuacct/user.slice/x",
                "net_cls,net_prio", "/sys/fs/cgroup/net_cls,net_prio/x",
                "devices", "/sys/fs/cgroup/devices/user.slice/x",
                "memory", "/sys/fs/cgroup/memory/user.slice/x"),
                // name=foo is not runc's; hugetlb is listed but not mounted; no v2 on legacy.
                resolve("x", CgroupMode.LEGACY, LEGACY_MOUNTINFO, LEGACY_SELF_CGROUP));
    }

    @Test
    void unifiedRelativePathIsBelowTheParentOfTheRuntimesCgroup() throws CgroupException {
        assertEquals(Map.of("", "/sys/fs/cgroup/user.slice/user-0.slice/ctr"),
                resolve("", CgroupMode.UNIFIED, UNIFIED_MOUNTINFO, "0::/user.slice/user-0.slice/session-1.scope\n"));
        assertEquals(Map.of("", "/sys/fs/cgroup/ctr"),
                resolve("", CgroupMode.UNIFIED, UNIFIED_MOUNTINFO, "0::/init.scope\n"));
        assertEquals(Map.of("", "/sys/fs/cgroup/ctr"),
                resolve("", CgroupMode.UNIFIED, UNIFIED_MOUNTINFO, "0::/\n"));
    }

    @Test
    void unifiedAbsolutePathIsBelowTheMountPoint() throws CgroupException {
        assertEquals(Map.of("", "/sys/fs/cgroup/a/b"),
                resolve("/a/b", CgroupMode.UNIFIED, UNIFIED_MOUNTINFO, "0::/user.slice\n"));
    }

    @Test
    void aMountOfPartOfAHierarchyIsAccountedFor() throws CgroupException {
        // A container without a cgroup namespace that got its own cgroup bind-mounted (mount root /docker/abc).
        String mountinfo = """
                20 10 0:30 /docker/abc /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory
                21 10 0:31 /docker/abc /sys/fs/cgroup/devices rw - cgroup cgroup rw,devices
                """;
        String self = "4:memory:/docker/abc\n3:devices:/docker/abc/sub\n";
        assertEquals(Map.of("memory", "/sys/fs/cgroup/memory/ctr", "devices", "/sys/fs/cgroup/devices/sub/ctr"),
                resolve("ctr", CgroupMode.LEGACY, mountinfo, self));
    }

    @Test
    void aRuntimeOutsideTheMountedPartCannotUseARelativePath() throws CgroupException {
        String mountinfo = "30 23 0:26 /docker/abc /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n";
        // runc would join /sys/fs/cgroup with /docker and land on a directory that is not there.
        CgroupException e = assertThrows(CgroupException.class,
                () -> resolve("ctr", CgroupMode.UNIFIED, mountinfo, "0::/docker/abc\n"));
        assertTrue(e.getMessage().contains("not below the mounted part"), e.getMessage());
        assertEquals(Map.of("", "/sys/fs/cgroup/x"), resolve("/x", CgroupMode.UNIFIED, mountinfo, "0::/docker/abc\n"));
    }

    @Test
    void aV1HostWithoutDevicesIsRefusedAsRuncRefusesIt() {
        CgroupException e = assertThrows(CgroupException.class, () -> CgroupHierarchies.of(CgroupMode.LEGACY,
                "27 25 0:24 / /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory\n", "6:memory:/\n"));
        assertEquals("mountpoint for devices not found", e.getMessage());
    }

    @Test
    void onlyRealControllersAreRequired() throws CgroupException {
        CgroupHierarchies hybrid = CgroupHierarchies.of(CgroupMode.HYBRID, HYBRID_MOUNTINFO, HYBRID_SELF_CGROUP);
        assertTrue(hybrid.byKey("memory").orElseThrow().required());
        assertFalse(hybrid.byKey("name=systemd").orElseThrow().required());
        assertFalse(hybrid.byKey("").orElseThrow().required());
        CgroupHierarchies unified = CgroupHierarchies.of(CgroupMode.UNIFIED, UNIFIED_MOUNTINFO, "0::/\n");
        assertEquals(List.of(new Hierarchy("", java.nio.file.Path.of("/sys/fs/cgroup"), "/", true)), unified.hierarchies());
    }

    @Test
    void theLastCgroup2MountOnTheMountPointIsTheVisibleOne() throws CgroupException {
        String mountinfo = """
                30 23 0:26 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw
                31 23 0:26 /inner /sys/fs/cgroup rw - cgroup2 cgroup2 rw
                """;
        assertEquals("/inner", CgroupHierarchies.of(CgroupMode.UNIFIED, mountinfo, "0::/inner/x\n")
                .hierarchies().getFirst().mountRoot());
    }
}
