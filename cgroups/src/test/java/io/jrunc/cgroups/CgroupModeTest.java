package io.jrunc.cgroups;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class CgroupModeTest {

    private static final long TMPFS_MAGIC = 0x01021994L;

    private static CgroupMode detectWith(Map<String, Long> magicByPath) {
        return CgroupMode.detect(path -> magicByPath.containsKey(path.toString())
                ? OptionalLong.of(magicByPath.get(path.toString())) : OptionalLong.empty());
    }

    @Test
    void cgroup2AtTheTopIsUnified() {
        assertEquals(CgroupMode.UNIFIED, detectWith(Map.of("/sys/fs/cgroup", StatFs.CGROUP2_SUPER_MAGIC)));
    }

    @Test
    void tmpfsWithCgroup2AtUnifiedIsHybrid() {
        assertEquals(CgroupMode.HYBRID, detectWith(Map.of(
                "/sys/fs/cgroup", TMPFS_MAGIC, "/sys/fs/cgroup/unified", StatFs.CGROUP2_SUPER_MAGIC)));
    }

    @Test
    void anythingElseIsLegacy() {
        assertEquals(CgroupMode.LEGACY, detectWith(Map.of("/sys/fs/cgroup", TMPFS_MAGIC)));
        assertEquals(CgroupMode.LEGACY, detectWith(Map.of(
                "/sys/fs/cgroup", TMPFS_MAGIC, "/sys/fs/cgroup/unified", StatFs.CGROUP_SUPER_MAGIC)));
        assertEquals(CgroupMode.LEGACY, detectWith(Map.of())); // statfs failing, as runc: assume v1
    }

    /**
     * The real statfs against an independent reading of this machine's mount table: the visible (last)
     * mount on each of the two paths decides.
     */
    @Test
    void detectionOnThisMachineAgreesWithItsMountTable() throws IOException {
        String expectedTop = null;
        String expectedUnified = null;
        for (String line : Files.readAllLines(Path.of("/proc/self/mountinfo"))) {
            String mountPoint = line.split(" ")[4];
            String fsType = line.substring(line.indexOf(" - ") + 3).split(" ")[0];
            if (mountPoint.equals("/sys/fs/cgroup")) {
                expectedTop = fsType;
            } else if (mountPoint.equals("/sys/fs/cgroup/unified")) {
                expectedUnified = fsType;
            }
        }
        CgroupMode expected = "cgroup2".equals(expectedTop) ? CgroupMode.UNIFIED
                : "cgroup2".equals(expectedUnified) ? CgroupMode.HYBRID
                : CgroupMode.LEGACY;
        assertEquals(expected, CgroupMode.detect());
    }
}
