package io.jrunc.cgroups;

import static io.jrunc.cgroups.Resources.memory;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrunc.spec.LinuxBlockIO;
import io.jrunc.spec.LinuxCPU;
import io.jrunc.spec.LinuxDeviceCgroup;
import io.jrunc.spec.LinuxHugepageLimit;
import io.jrunc.spec.LinuxMemory;
import io.jrunc.spec.LinuxPids;
import io.jrunc.spec.LinuxResources;
import io.jrunc.testsupport.HostLimitation;
import io.jrunc.testsupport.Requirements;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Resource limits against this machine's kernel (root; cgroup v1 controllers, hybrid): the values are
 * read back from the kernel's files, and their effect is observed on real processes.
 */
class CgroupResourcesKernelTest {
    private static final long M = 1024 * 1024;

    private KernelCgroupFixture fixture;

    @BeforeEach
    void setUp() throws Exception {
        Requirements.requireRoot("cgroups");
        HostLimitation.skipUnless(CgroupMode.detect() != CgroupMode.UNIFIED,
                "a pure cgroup v2 host has no v1 controllers, which this class tests (v2 is tested in the VM)");
        fixture = new KernelCgroupFixture();
    }

    @AfterEach
    void tearDown() throws Exception {
        if (fixture != null) {
            fixture.close();
        }
    }

    private Cgroup create() throws CgroupException {
        return Cgroup.create(CgroupsPath.of("/" + fixture.name + "/ctr", "unused"));
    }

    private static String read(Cgroup cgroup, String hierarchy, String file) throws IOException {
        return Files.readString(cgroup.location().directory(hierarchy).resolve(file)).trim();
    }

    /** A shell placed in the cgroup before it runs {@code script}: it waits for a line on stdin first. */
    private Process placedShell(Cgroup cgroup, String script) throws Exception {
        Process sh = fixture.start("sh", "-c", "read go; " + script);
        cgroup.addProcess(sh.pid());
        sh.getOutputStream().write("go\n".getBytes(StandardCharsets.US_ASCII));
        sh.getOutputStream().flush();
        return sh;
    }

    @Test
    void limitsAreWhatTheKernelReadsBack() throws Exception {
        Cgroup cgroup = create();
        cgroup.apply(new LinuxResources(null,
                new LinuxMemory(64 * M, 32 * M, 96 * M, null, null, 10L, null, null, null),
                new LinuxCPU(512L, 20000L, null, 50000L, null, null, "0", "0", null),
                new LinuxPids(5L), null, null, null, null, null));
        assertEquals("" + 64 * M, read(cgroup, "memory", "memory.limit_in_bytes"));
        assertEquals("" + 96 * M, read(cgroup, "memory", "memory.memsw.limit_in_bytes"), "v1 takes the total as it is");
        assertEquals("" + 32 * M, read(cgroup, "memory", "memory.soft_limit_in_bytes"));
        assertEquals("10", read(cgroup, "memory", "memory.swappiness"));
        assertEquals("512", read(cgroup, "cpu", "cpu.shares"));
        assertEquals("20000", read(cgroup, "cpu", "cpu.cfs_quota_us"));
        assertEquals("50000", read(cgroup, "cpu", "cpu.cfs_period_us"));
        assertEquals("0", read(cgroup, "cpuset", "cpuset.cpus"));
        assertEquals("0", read(cgroup, "cpuset", "cpuset.mems"));
        assertEquals("5", read(cgroup, "pids", "pids.max"));

        // lowering both (limit first) and raising both (memsw first) pass the kernel's memsw >= limit check
        cgroup.apply(Resources.of(memory(16 * M, 24 * M)));
        assertEquals("" + 16 * M, read(cgroup, "memory", "memory.limit_in_bytes"));
        assertEquals("" + 24 * M, read(cgroup, "memory", "memory.memsw.limit_in_bytes"));
        cgroup.apply(Resources.of(memory(128 * M, 256 * M)));
        assertEquals("" + 128 * M, read(cgroup, "memory", "memory.limit_in_bytes"));
        assertEquals("" + 256 * M, read(cgroup, "memory", "memory.memsw.limit_in_bytes"));
        cgroup.apply(Resources.of(memory(-1L, null)));
        assertEquals("9223372036854771712", read(cgroup, "memory", "memory.limit_in_bytes"));
        assertEquals("9223372036854771712", read(cgroup, "memory", "memory.memsw.limit_in_bytes"));

        CgroupStats stats = cgroup.stats();
        assertEquals(new CgroupStats.Pids(0, 5), stats.pids());
        assertEquals(-1L >>> 1 & ~4095L, stats.memory().usage().limit());
    }

    @Test
    void theKernelsErrorNamesFileValueAndErrno() throws Exception {
        Cgroup cgroup = create();
        CgroupException e = assertThrows(CgroupException.class,
                () -> cgroup.apply(Resources.of(new LinuxCPU(null, null, null, null, null, null, "999999", null, null))));
        assertEquals("failed to write \"999999\" to \"" + cgroup.location().directory("cpuset").resolve("cpuset.cpus")
                + "\": numerical result out of range", e.getMessage());
        assertEquals(io.jrunc.bindings.Errno.ERANGE, e.errno());
    }

    @Test
    void blkioWeightWhereTheKernelHasAWeightFile() throws Exception {
        Cgroup cgroup = create();
        Path blkio = cgroup.location().directory("blkio");
        HostLimitation.skipUnless(Files.exists(blkio.resolve("blkio.weight")) || Files.exists(blkio.resolve("blkio.bfq.weight")),
                "no CFQ/BFQ weight file in this kernel's blkio controller");
        cgroup.apply(Resources.of(new LinuxBlockIO(300, null, null, null, null, null, null)));
        String file = Files.exists(blkio.resolve("blkio.weight")) ? "blkio.weight" : "blkio.bfq.weight";
        assertTrue(read(cgroup, "blkio", file).contains("300"));
    }

    @Test
    void aProcessCannotForkPastPidsMax() throws Exception {
        Cgroup cgroup = create();
        cgroup.apply(Resources.pids(5L));
        Process sh = placedShell(cgroup, "i=0; while [ $i -lt 8 ]; do sleep 30 >/dev/null 2>&1 & i=$((i+1)); done; wait");
        // sh and its first 4 children are 5 tasks; the 6th fork fails and the shell gives up ("Cannot fork")
        String output = new String(sh.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(sh.waitFor(10, TimeUnit.SECONDS));
        assertTrue(output.matches("(?s).*(?i:can.t|cannot) fork.*"), output);
        assertNotEquals(0, sh.exitValue());
        assertEquals(4, cgroup.processes().size(), "the 4 sleeps forked before the limit");
        assertEquals("max 1", read(cgroup, "pids", "pids.events"), "one fork refused");

        cgroup.killAll(io.jrunc.bindings.Signals.SIGKILL);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!cgroup.isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertTrue(cgroup.isEmpty(), "killAll reached every process");
        assertFalse(cgroup.isFrozen(), "killAll thawed again");
    }

    private static String state(long pid) throws IOException {
        return Files.readAllLines(Path.of("/proc/" + pid + "/status")).stream()
                .filter(l -> l.startsWith("State:")).findFirst().orElseThrow();
    }

    @Test
    void freezeAndThawAProcess() throws Exception {
        Cgroup cgroup = create();
        Process sh = placedShell(cgroup, "while :; do :; done"); // busy: R while running
        Thread.sleep(100);
        assertFalse(cgroup.isFrozen());
        String running = state(sh.pid());
        cgroup.freeze();
        assertTrue(cgroup.isFrozen());
        String frozen = state(sh.pid());
        assertNotEquals(running, frozen);
        assertTrue(frozen.contains("D") || frozen.contains("S"), frozen);
        long cpuBefore = cgroup.stats().cpu().usage().total();
        Thread.sleep(200);
        assertEquals(cpuBefore, cgroup.stats().cpu().usage().total(), "a frozen process uses no CPU");
        cgroup.thaw();
        assertFalse(cgroup.isFrozen());
        Thread.sleep(100);
        assertTrue(state(sh.pid()).contains("R"), state(sh.pid()));
        assertTrue(cgroup.stats().cpu().usage().total() > cpuBefore);
    }

    @Test
    void aMemoryHogIsOomKilledAndCounted() throws Exception {
        Cgroup cgroup = create();
        cgroup.apply(Resources.of(memory(16 * M, 16 * M))); // swap disabled: memsw == limit
        assertEquals(new OomEvents(0, 0, false), cgroup.oomEvents());
        try (OomNotifier notifier = cgroup.oomNotifier().orElseThrow()) {
            assertEquals(0, poll(notifier, 100), "no OOM yet, no notice");
            Process hog = placedShell(cgroup, "exec tail /dev/zero");
            assertTrue(hog.waitFor(30, TimeUnit.SECONDS), "the hog was not killed");
            assertEquals(128 + 9, hog.exitValue(), "killed by SIGKILL");
            assertEquals(io.jrunc.bindings.FileDescriptors.POLLIN, poll(notifier, 10_000), "the kernel's OOM notice");
            notifier.rearm();
            assertEquals(0, poll(notifier, 100), "taken: no notice until the next OOM");
        }
        OomEvents events = cgroup.oomEvents();
        assertTrue(events.oomKill() >= 1, events.toString());
        assertEquals(16 * M, cgroup.stats().memory().usage().max(), "the peak reached the limit");
    }

    /** The notifier's revents after waiting up to {@code millis}. */
    static short poll(OomNotifier notifier, int millis) {
        return io.jrunc.bindings.FileDescriptors.poll(notifier.fd(), notifier.events(), millis);
    }

    @Test
    void devicesDenyAllThenTheRulesInOrder() throws Exception {
        Cgroup cgroup = create();
        cgroup.apply(Resources.devices(List.of(new LinuxDeviceCgroup(false, null, null, null, "rwm"),
                new LinuxDeviceCgroup(true, "c", 1L, 3L, "rwm"), new LinuxDeviceCgroup(true, "c", 1L, 5L, "r"))));
        assertEquals("c 1:3 rwm\nc 1:5 r", read(cgroup, "devices", "devices.list"));
        Process sh = placedShell(cgroup, "echo > /dev/null && echo null-ok; head -c1 /dev/zero >/dev/null && echo zero-read-ok;"
                + " echo x > /dev/zero || echo zero-write-denied; head -c1 /dev/urandom >/dev/null || echo urandom-denied");
        String output = new String(sh.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        sh.waitFor();
        assertTrue(output.contains("null-ok") && output.contains("zero-read-ok") && output.contains("zero-write-denied")
                && output.contains("urandom-denied"), output);
    }

    @Test
    void hugetlbOfAHybridHostGoesToTheV2Hierarchy() throws Exception {
        HostLimitation.skipUnless(CgroupMode.detect() == CgroupMode.HYBRID, "not a hybrid cgroup host");
        Path unifiedRoot = fixture.hierarchies.hierarchies().stream().filter(Hierarchy::isUnified).findFirst().orElseThrow().mountPoint();
        HostLimitation.skipUnless(Files.readString(unifiedRoot.resolve("cgroup.controllers")).contains("hugetlb")
                && fixture.hierarchies.hierarchies().stream().noneMatch(h -> h.controllers().contains("hugetlb")),
                "hugetlb is not bound to this host's v2 hierarchy (it is on a v1 one, or absent)");
        boolean wasEnabled = Files.readString(unifiedRoot.resolve("cgroup.subtree_control")).contains("hugetlb");
        try {
            Cgroup cgroup = create();
            cgroup.apply(Resources.hugetlb(List.of(new LinuxHugepageLimit("2MB", 4 * M))));
            assertEquals("" + 4 * M, read(cgroup, "", "hugetlb.2MB.max"));
            assertEquals("" + 4 * M, read(cgroup, "", "hugetlb.2MB.rsvd.max"));
            assertTrue(cgroup.stats().hugetlb().containsKey("2MB"));
            fixture.close();
            fixture = null;
        } finally {
            if (!wasEnabled) {
                // leave the host's v2 tree as it was: the fixture removed our cgroups, so root can disable again
                try {
                    Files.writeString(unifiedRoot.resolve("cgroup.subtree_control"), "-hugetlb", StandardOpenOption.WRITE);
                } catch (IOException ignored) {
                    // another cgroup now uses it
                }
            }
        }
    }
}
