package io.jrunc.runtime.init;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The plan {@link MountOrder} makes from a container's mountinfo (the kernel's side is in the tests
 * module: MountOrderTest, PodmanTest, JruncGuestTest).
 */
class MountOrderTest {
    private static final MountOptions NONE = MountOptions.parse(null, "");

    private static RootfsBuilder.Prepared prepared(int procs, RootfsBuilder.MountHandle... handles) {
        List<RootfsBuilder.ProcMount> proc = java.util.stream.IntStream.range(0, procs)
                .mapToObj(i -> new RootfsBuilder.ProcMount(i == 0 ? "/proc" : "/proc2", NONE)).toList();
        return new RootfsBuilder.Prepared(proc, "/proc/self/fd/3", List.of(handles));
    }

    /** runc's default spec with a bind over /proc/meminfo and two entries stacked at /data. */
    private static final List<String> MOUNTINFO = List.of(
            "100 90 0:50 /bundle/rootfs / rw,relatime master:1 - ext4 /dev/vda rw",
            "101 100 0:51 / /proc rw,nosuid,nodev,noexec - tmpfs jrunc-proc rw,size=4k,mode=711",
            "102 101 0:5 /fifo /proc/self/fd/3 rw - tmpfs tmpfs rw",
            "103 100 0:52 / /dev rw,nosuid - tmpfs tmpfs rw,mode=755",
            "104 103 0:53 / /dev/pts rw,nosuid,noexec - devpts devpts rw",
            "105 101 0:54 /meminfo /proc/meminfo ro - ext4 /dev/vda rw",
            "106 100 0:55 /lower /data rw - ext4 /dev/vda rw",
            "107 106 0:56 /upper /data rw unbindable - ext4 /dev/vda rw",
            "108 100 0:57 / /sys ro - sysfs sysfs ro",
            "109 108 0:58 / /sys/kernel/security rw - securityfs securityfs rw",
            "110 103 0:53 /0 /dev/console rw - devpts devpts rw");

    @Test
    void everyMountFromTheFirstPlaceholderOnIsMadeAgainInOrder() {
        var order = MountOrder.plan(MOUNTINFO, prepared(1,
                new RootfsBuilder.MountHandle("/dev", 11), new RootfsBuilder.MountHandle("/dev/pts", 12),
                new RootfsBuilder.MountHandle("/proc/meminfo", 13), new RootfsBuilder.MountHandle("/data", 14),
                new RootfsBuilder.MountHandle("/data", 15), new RootfsBuilder.MountHandle("/sys", 16)));
        assertEquals(List.of(
                new MountOrder.Step("/proc", 0, -1, false),
                new MountOrder.Step("/dev", -1, 11, false),
                new MountOrder.Step("/dev/pts", -1, 12, false),
                new MountOrder.Step("/proc/meminfo", -1, 13, false),
                new MountOrder.Step("/data", -1, 14, false),
                new MountOrder.Step("/data", -1, 15, true),
                new MountOrder.Step("/sys", -1, 16, false),
                new MountOrder.Step("/sys/kernel/security", -1, -1, false),
                new MountOrder.Step("/dev/console", -1, -1, false)), order.steps());
        // the gate's FIFO bind goes with the placeholder; /data twice (the stacked copy too)
        assertEquals(List.of(new MountOrder.Detach("/proc", 1), new MountOrder.Detach("/dev", 1),
                new MountOrder.Detach("/data", 2), new MountOrder.Detach("/sys", 1)), order.detaches());
    }

    @Test
    void aSecondProcEntryIsMadeAtItsTurn() {
        List<String> mountinfo = List.of(
                "100 90 0:50 / / rw - ext4 /dev/vda rw",
                "101 100 0:51 / /proc rw - tmpfs jrunc-proc rw",
                "102 101 0:5 /fifo /proc/self/fd/3 rw - tmpfs tmpfs rw",
                "103 100 0:52 / /dev rw - tmpfs tmpfs rw",
                "104 100 0:53 / /proc2 rw - tmpfs jrunc-proc rw");
        var order = MountOrder.plan(mountinfo, prepared(2, new RootfsBuilder.MountHandle("/dev", 7)));
        assertEquals(List.of(new MountOrder.Step("/proc", 0, -1, false), new MountOrder.Step("/dev", -1, 7, false),
                new MountOrder.Step("/proc2", 1, -1, false)), order.steps());
    }

    @Test
    void mountinfoEscapesAreDecoded() {
        List<String> mountinfo = List.of(
                "101 100 0:51 / /proc rw - tmpfs jrunc-proc rw",
                "103 100 0:52 / /my\\040dir rw - tmpfs tmpfs rw");
        var order = MountOrder.plan(mountinfo, prepared(1));
        assertEquals("/my dir", order.steps().get(1).path());
    }

    @Test
    void aTableWithoutThePlaceholderIsRefused() {
        assertThrows(IllegalStateException.class, () -> MountOrder.plan(
                List.of("100 90 0:50 / / rw - ext4 /dev/vda rw"), prepared(1)));
    }
}
