package io.jrunc.cgroups;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrunc.spec.LinuxDeviceCgroup;
import io.jrunc.spec.LinuxResources;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * runc's rootless cgroup rules on a cgroup a rootless create could not make (no directory at all): device
 * rules are ignored, a limit is refused with the reason, nothing is written; a unified host's cgroup
 * without its directory answers the same way.
 */
class RootlessCgroupTest {
    private static final LinuxDeviceCgroup DENY_ALL = new LinuxDeviceCgroup(false, "a", null, null, "rwm");

    private static Cgroup without(CgroupMode mode, RecordingCgroupFiles files, String why) {
        Cgroup cgroup = Cgroup.open(new CgroupLocation(mode, Map.of()), files);
        cgroup.rootless = true;
        cgroup.leftOutBecause = why;
        return cgroup;
    }

    @Test
    void v1DeviceRulesAreIgnoredAndALimitIsRefusedWithTheReason(@TempDir Path root) {
        RecordingCgroupFiles files = new RecordingCgroupFiles(root);
        Cgroup cgroup = without(CgroupMode.HYBRID, files, "the reason");
        assertDoesNotFail(() -> cgroup.apply(Resources.devices(List.of(DENY_ALL))));
        CgroupException e = assertThrows(CgroupException.class,
                () -> cgroup.apply(Resources.of(Resources.memory(64L << 20, null))));
        assertEquals("cannot set memory limit: container could not join or create cgroup (rootless container:"
                + " the reason; limits need a cgroup v2 subtree delegated to the user)", e.getMessage());
        assertEquals(List.of(), files.writes);
    }

    @Test
    void withoutRootlessAMissingDevicesHierarchyIsStillAnError(@TempDir Path root) {
        Cgroup cgroup = Cgroup.open(new CgroupLocation(CgroupMode.HYBRID, Map.of()), new RecordingCgroupFiles(root));
        CgroupException e = assertThrows(CgroupException.class, () -> cgroup.apply(Resources.devices(List.of(DENY_ALL))));
        assertEquals("cannot set devices limit: container could not join or create cgroup", e.getMessage());
    }

    @Test
    void unifiedWithoutADirectoryRunsWithoutLimitsAndRefusesThem(@TempDir Path root) throws Exception {
        RecordingCgroupFiles files = new RecordingCgroupFiles(root);
        Cgroup cgroup = without(CgroupMode.UNIFIED, files, "mkdir /sys/fs/cgroup/x: permission denied");
        cgroup.apply(Resources.devices(List.of(DENY_ALL)));
        cgroup.apply(new LinuxResources(null, null, null, null, null, null, null, null, null));
        CgroupException e = assertThrows(CgroupException.class, () -> cgroup.apply(Resources.pids(10L)));
        assertTrue(e.getMessage().startsWith("cannot set pids limit: container could not join or create cgroup"
                + " (rootless container: mkdir /sys/fs/cgroup/x: permission denied;"), e.getMessage());
        assertThrows(CgroupException.class, () -> cgroup.apply(Resources.unified(Map.of("memory.high", "1"))));
        assertThrows(CgroupException.class, cgroup::freeze);
        assertEquals(List.of(), cgroup.processes());
        assertEquals(List.of(), files.writes);
    }

    @Test
    void permissionErrorsAreRuncsIgnorableOnes() {
        assertTrue(Cgroup.isPermissionError(new CgroupException("x", io.jrunc.bindings.Errno.EACCES, null)));
        assertTrue(Cgroup.isPermissionError(new CgroupException("x", io.jrunc.bindings.Errno.EROFS, null)));
        assertTrue(Cgroup.isPermissionError(new CgroupException("x", new java.nio.file.AccessDeniedException("/d"))));
        assertTrue(!Cgroup.isPermissionError(new CgroupException("x", io.jrunc.bindings.Errno.ENOSPC, null)));
    }

    private interface Body {
        void run() throws Exception;
    }

    private static void assertDoesNotFail(Body body) {
        try {
            body.run();
        } catch (Exception e) {
            throw new AssertionError("failed: " + e.getMessage(), e);
        }
    }
}
