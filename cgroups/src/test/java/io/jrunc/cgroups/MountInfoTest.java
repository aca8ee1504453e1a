package io.jrunc.cgroups;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

class MountInfoTest {

    @Test
    void readsRootMountPointTypeAndSuperOptionsPastOptionalFields() throws CgroupException {
        List<MountInfo> mounts = MountInfo.parse("""
                32 31 0:29 / /sys/fs/cgroup/cpu,cpuacct rw,nosuid shared:13 master:2 - cgroup cgroup rw,cpu,cpuacct
                41 31 0:38 /docker/abc /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw
                """);
        assertEquals(new MountInfo("/", Path.of("/sys/fs/cgroup/cpu,cpuacct"), "cgroup", List.of("rw", "cpu", "cpuacct")),
                mounts.get(0));
        assertEquals(new MountInfo("/docker/abc", Path.of("/sys/fs/cgroup/unified"), "cgroup2", List.of("rw")),
                mounts.get(1));
    }

    @Test
    void octalEscapesInPathsAreDecoded() throws CgroupException {
        MountInfo mount = MountInfo.parse("50 23 0:40 /a\\040b /mnt/with\\040space\\134x rw - tmpfs tmpfs rw\n").getFirst();
        assertEquals("/a b", mount.root());
        assertEquals(Path.of("/mnt/with space\\x"), mount.mountPoint());
    }

    @Test
    void aLineWithoutTheSeparatorIsAnError() {
        assertThrows(CgroupException.class, () -> MountInfo.parse("1 2 3:4 / /x rw tmpfs tmpfs rw\n"));
    }
}
