package io.jrunc.cgroups;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Freezer protocol and stats parsing on fake files (the kernel tests cover the real ones). */
class FreezerAndStatsTest {
    @TempDir
    Path tmp;

    @Test
    void v2FreezePollsCgroupEventsUntilFrozen() throws Exception {
        int[] reads = {0};
        RecordingCgroupFiles fs = new RecordingCgroupFiles(tmp) {
            @Override
            public String read(Path file) throws CgroupException {
                if (file.endsWith("cgroup.events")) {
                    return ++reads[0] < 3 ? "populated 1\nfrozen 0\n" : "populated 1\nfrozen 1\n";
                }
                return super.read(file);
            }
        };
        fs.file("c/cgroup.freeze", "0").file("c/cgroup.events", "");
        Freezer freezer = new Freezer.V2(fs, tmp.resolve("c"));
        freezer.freeze();
        assertEquals(3, reads[0]);
        assertTrue(freezer.isFrozen());
        freezer.thaw();
        assertFalse(freezer.isFrozen());
        assertEquals(List.of("c/cgroup.freeze=1", "c/cgroup.freeze=0"), fs.writes);
    }

    @Test
    void v1FreezeRewritesFrozenWhileFreezing() throws Exception {
        int[] reads = {0};
        RecordingCgroupFiles fs = new RecordingCgroupFiles(tmp) {
            @Override
            public String read(Path file) throws CgroupException {
                if (file.endsWith("freezer.state") && ++reads[0] < 3) {
                    return "FREEZING\n";
                }
                return super.read(file);
            }
        };
        fs.file("f/freezer.state", "THAWED\n").file("f/freezer.self_freezing", "1\n");
        new Freezer.V1(fs, tmp.resolve("f")).freeze();
        assertEquals(List.of("f/freezer.state=FROZEN", "f/freezer.state=FROZEN", "f/freezer.state=FROZEN"), fs.writes);
        assertTrue(new Freezer.V1(fs, tmp.resolve("f")).isFrozen());
        fs.file("f/freezer.self_freezing", "0\n");
        assertFalse(new Freezer.V1(fs, tmp.resolve("f")).isFrozen(), "frozen by an ancestor only");
    }

    @Test
    void v2StatsAsRuncReportsThem() throws Exception {
        RecordingCgroupFiles fs = new RecordingCgroupFiles(tmp);
        fs.file("c/cpu.stat", "usage_usec 100\nuser_usec 60\nsystem_usec 40\nnr_periods 5\nnr_throttled 2\nthrottled_usec 7\n")
                .file("c/memory.current", "1000\n").file("c/memory.max", "4096\n").file("c/memory.peak", "2000\n")
                .file("c/memory.events", "low 0\nhigh 0\nmax 3\noom 1\noom_kill 1\n")
                .file("c/memory.swap.current", "10\n").file("c/memory.swap.max", "max\n")
                .file("c/memory.stat", "anon 800\nfile 200\n")
                .file("c/memory.pressure", "some avg10=0.50 avg60=0.10 avg300=0.00 total=123\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=4\n")
                .file("c/pids.current", "3\n").file("c/pids.max", "max\n")
                .file("c/io.stat", "253:0 rbytes=4096 wbytes=8192 rios=1 wios=2 dbytes=0 dios=0\n");
        CgroupStats stats = new CgroupStatsReader(fs).v2(tmp.resolve("c"), List.of());
        assertEquals(new CgroupStats.CpuUsage(100_000, List.of(), List.of(), List.of(), 40_000, 60_000), stats.cpu().usage());
        assertEquals(new CgroupStats.Throttling(5, 2, 7000), stats.cpu().throttling());
        assertNull(stats.cpu().psi());
        assertEquals(new CgroupStats.MemoryEntry(4096, 1000, 2000, 3), stats.memory().usage());
        assertEquals(new CgroupStats.MemoryEntry(-1, 1010, 0, 0), stats.memory().swap());
        assertEquals(200, stats.memory().cache());
        assertEquals(Map.of("anon", 800L, "file", 200L), stats.memory().raw());
        assertEquals(new CgroupStats.PsiData(0.5, 0.1, 0, 123), stats.memory().psi().some());
        assertEquals(new CgroupStats.Pids(3, 0), stats.pids());
        assertEquals(List.of(new CgroupStats.BlkioEntry(253, 0, "Read", 4096), new CgroupStats.BlkioEntry(253, 0, "Write", 8192)),
                stats.blkio().ioServiceBytesRecursive());
        assertEquals(List.of(new CgroupStats.BlkioEntry(253, 0, "Read", 1), new CgroupStats.BlkioEntry(253, 0, "Write", 2)),
                stats.blkio().ioServicedRecursive());
    }

    @Test
    void v1BlkioLinesSkipTotals() throws Exception {
        RecordingCgroupFiles fs = new RecordingCgroupFiles(tmp);
        fs.file("blkio/blkio.throttle.io_service_bytes_recursive", "8:0 Read 1282048\n8:0 Write 2195456\nTotal 3477504\n");
        CgroupStats stats = new CgroupStatsReader(fs).v1(Map.of("blkio", tmp.resolve("blkio")), null, List.of());
        assertEquals(List.of(new CgroupStats.BlkioEntry(8, 0, "Read", 1282048), new CgroupStats.BlkioEntry(8, 0, "Write", 2195456)),
                stats.blkio().ioServiceBytesRecursive());
    }
}
