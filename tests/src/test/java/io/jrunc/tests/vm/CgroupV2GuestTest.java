package io.jrunc.tests.vm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrunc.cgroups.Cgroup;
import io.jrunc.cgroups.CgroupException;
import io.jrunc.cgroups.CgroupMode;
import io.jrunc.cgroups.CgroupsPath;
import io.jrunc.cgroups.CpuWeight;
import io.jrunc.cgroups.IoWeight;
import io.jrunc.cgroups.OomEvents;
import io.jrunc.spec.LinuxBlockIO;
import io.jrunc.spec.LinuxCPU;
import io.jrunc.spec.LinuxDeviceCgroup;
import io.jrunc.spec.LinuxMemory;
import io.jrunc.spec.LinuxPids;
import io.jrunc.spec.LinuxResources;
import io.jrunc.testsupport.HostLimitation;
import io.jrunc.testsupport.Requirements;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

/**
 * The cgroups module on a pure cgroup v2 kernel. Runs inside the test VM only (scripts/vm-test.sh,
 * {@link GuestInit} as PID 1, root, busybox as /bin/sh); the host's surefire run excludes this package.
 * Every limit is read back from the guest kernel's files, and the effects are observed on real
 * processes: the same checks as cgroups' CgroupResourcesKernelTest on the hybrid build machine, plus the
 * v2-only files and the memory+swap to swap-only conversion.
 */
class CgroupV2GuestTest {
    private static final long M = 1024 * 1024;
    private static final int SIGKILL = 9;
    private static final Path ROOT = Path.of("/sys/fs/cgroup");
    /** Every test's cgroup is below this one; the VM is thrown away afterwards, but tests clean up anyway. */
    private static final String PARENT = "jrunc-vm";

    private final List<Process> processes = new ArrayList<>();
    private Cgroup cgroup;
    private Path dir;

    @BeforeEach
    void setUp(TestInfo test) throws Exception {
        Requirements.requireRoot("cgroups");
        if (Boolean.getBoolean("jrunc.vm")) {
            assertEquals(CgroupMode.UNIFIED, CgroupMode.detect(), "the VM's kernel mounts cgroup2 only");
        } else {
            HostLimitation.skipUnless(CgroupMode.detect() == CgroupMode.UNIFIED, "pure cgroup v2 only (the test VM)");
        }
        String name = test.getTestMethod().orElseThrow().getName();
        cgroup = Cgroup.create(CgroupsPath.of("/" + PARENT + "/" + name, "unused"));
        dir = cgroup.location().directory("");
        assertEquals(ROOT.resolve(PARENT).resolve(name), dir);
    }

    @AfterEach
    void tearDown() throws Exception {
        for (Process p : processes) {
            p.destroyForcibly();
        }
        if (cgroup != null) {
            if (!cgroup.isEmpty()) {
                cgroup.killAll(SIGKILL);
                waitUntil(() -> cgroup.isEmpty(), 10_000);
            }
            cgroup.destroy();
            assertFalse(Files.exists(dir), dir + " removed");
        }
    }

    private String read(String file) throws IOException {
        return Files.readString(dir.resolve(file)).trim();
    }

    /** A shell placed in the cgroup before it runs {@code script}: it waits for a line on stdin first. */
    private Process placedShell(String script) throws Exception {
        Process sh = new ProcessBuilder("/bin/sh", "-c", "read go; " + script).redirectErrorStream(true).start();
        processes.add(sh);
        cgroup.addProcess(sh.pid());
        sh.getOutputStream().write("go\n".getBytes(StandardCharsets.US_ASCII));
        sh.getOutputStream().flush();
        return sh;
    }

    private static LinuxResources resources(LinuxMemory memory, LinuxCPU cpu, LinuxPids pids, LinuxBlockIO io,
                                            Map<String, String> unified) {
        return new LinuxResources(null, memory, cpu, pids, io, null, null, null, unified);
    }

    private static LinuxMemory memory(Long limit, Long reservation, Long swap) {
        return new LinuxMemory(limit, reservation, swap, null, null, null, null, null, null);
    }

    private static LinuxResources memory(Long limit, Long swap) {
        return resources(memory(limit, null, swap), null, null, null, null);
    }

    @Test
    void createEnablesTheControllersTheLimitsNeed() throws Exception {
        List<String> available = List.of(read("cgroup.controllers").split(" "));
        for (String controller : List.of("cpu", "memory", "pids", "io")) {
            assertTrue(available.contains(controller), controller + " in " + available);
        }
        assertTrue(Files.readString(ROOT.resolve(PARENT).resolve("cgroup.subtree_control")).contains("memory"));
    }

    @Test
    void limitsAreWhatTheKernelReadsBack() throws Exception {
        cgroup.apply(resources(memory(64 * M, 32 * M, 96 * M),
                new LinuxCPU(512L, 20000L, null, 50000L, null, null, "0", "0", null), new LinuxPids(5L),
                new LinuxBlockIO(500, null, null, null, null, null, null), Map.of("memory.oom.group", "1")));
        assertEquals("" + 64 * M, read("memory.max"));
        assertEquals("" + 32 * M, read("memory.low"), "reservation");
        assertEquals("" + 32 * M, read("memory.swap.max"), "v2 takes swap only: total 96M - memory 64M");
        assertEquals("20000 50000", read("cpu.max"));
        assertEquals("59", read("cpu.weight"), "shares 512 through runc's current formula");
        assertEquals("" + CpuWeight.fromShares(512), read("cpu.weight"));
        assertEquals("5", read("pids.max"));
        assertEquals("0", read("cpuset.cpus"));
        assertEquals("0", read("cpuset.mems"));
        assertEquals("1", read("memory.oom.group"), "unified map");
        assertTrue(Files.exists(dir.resolve("io.weight")), "io.weight (no BFQ in this guest)");
        assertEquals("default " + IoWeight.fromBlkioWeight(500), read("io.weight"));
        assertEquals("default 4950", read("io.weight"), "blkio weight 500 → 1 + 490·9999/990");

        cgroup.apply(resources(null, new LinuxCPU(2L, -1L, null, null, null, null, null, null, null), new LinuxPids(-1L),
                null, null));
        assertEquals("1", read("cpu.weight"), "shares 2");
        assertEquals("max 100000", read("cpu.max"), "quota -1 is max; period 0 is the default 100000, as runc");
        assertEquals("max", read("pids.max"));
        cgroup.apply(resources(null, new LinuxCPU(262144L, null, null, null, null, null, null, null, null), new LinuxPids(0L),
                null, null));
        assertEquals("10000", read("cpu.weight"), "shares 262144");
        assertEquals("1", read("pids.max"), "pids 0 means 1");
    }

    @Test
    void swapTotalsBecomeSwapOnlyLimits() throws Exception {
        String untouched = read("memory.swap.max");
        cgroup.apply(memory(32 * M, null));
        assertEquals("" + 32 * M, read("memory.max"));
        assertEquals(untouched, read("memory.swap.max"), "swap unset: memory.swap.max not written");

        cgroup.apply(memory(32 * M, 96 * M));
        assertEquals("67108864", read("memory.swap.max"), "memory 32M with a total of 96M: 64M of swap");
        assertEquals("" + 32 * M, read("memory.max"));

        cgroup.apply(memory(48 * M, null));
        assertEquals("" + 48 * M, read("memory.max"));
        assertEquals("67108864", read("memory.swap.max"), "swap unset: the earlier 64M stays");

        cgroup.apply(memory(32 * M, -1L));
        assertEquals("max", read("memory.swap.max"), "-1: unlimited swap");
        assertEquals("" + 32 * M, read("memory.max"));

        cgroup.apply(memory(32 * M, 32 * M));
        assertEquals("0", read("memory.swap.max"), "total == memory: no swap");

        cgroup.apply(memory(-1L, -1L));
        assertEquals("max", read("memory.max"));
        assertEquals("max", read("memory.swap.max"));

        CgroupException e = assertThrows(CgroupException.class, () -> cgroup.apply(memory(64 * M, 32 * M)));
        assertTrue(e.getMessage().contains("swap"), e.getMessage());
    }

    @Test
    void aProcessCannotForkPastPidsMax() throws Exception {
        cgroup.apply(resources(null, null, new LinuxPids(5L), null, null));
        Process sh = placedShell("i=0; while [ $i -lt 8 ]; do sleep 30 >/dev/null 2>&1 & i=$((i+1)); done; wait");
        // sh and its first 4 children are 5 tasks; the 6th fork fails and the shell gives up ("can't fork")
        String output = new String(sh.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(sh.waitFor(30, TimeUnit.SECONDS));
        assertTrue(output.matches("(?s).*(?i:can.t|cannot) fork.*"), output);
        assertNotEquals(0, sh.exitValue());
        assertEquals(4, cgroup.processes().size(), "the 4 sleeps forked before the limit");
        assertTrue(read("pids.events").matches("max [1-9][0-9]*"), read("pids.events"));

        cgroup.killAll(SIGKILL);
        waitUntil(() -> cgroup.isEmpty(), 10_000);
        assertTrue(cgroup.isEmpty(), "killAll (cgroup.kill) reached every process");
        assertFalse(cgroup.isFrozen());
    }

    private static String state(long pid) throws IOException {
        return Files.readAllLines(Path.of("/proc/" + pid + "/status")).stream()
                .filter(l -> l.startsWith("State:")).findFirst().orElseThrow();
    }

    @Test
    void freezeAndThawThroughCgroupFreeze() throws Exception {
        Process sh = placedShell("while :; do :; done"); // busy: R while running
        Thread.sleep(200);
        assertFalse(cgroup.isFrozen());
        cgroup.freeze();
        assertTrue(cgroup.isFrozen());
        assertEquals("1", read("cgroup.freeze"));
        assertTrue(read("cgroup.events").contains("frozen 1"), read("cgroup.events"));
        String frozen = state(sh.pid());
        assertTrue(frozen.contains("S") || frozen.contains("D"), frozen);
        long cpuBefore = cgroup.stats().cpu().usage().total();
        Thread.sleep(300);
        assertEquals(cpuBefore, cgroup.stats().cpu().usage().total(), "a frozen process uses no CPU");
        cgroup.thaw();
        assertFalse(cgroup.isFrozen());
        assertEquals("0", read("cgroup.freeze"));
        assertTrue(read("cgroup.events").contains("frozen 0"), read("cgroup.events"));
        waitUntil(() -> cgroup.stats().cpu().usage().total() > cpuBefore, 5_000);
        assertTrue(cgroup.stats().cpu().usage().total() > cpuBefore, "running again");
    }

    @Test
    void aMemoryHogIsOomKilledAtMemoryMaxAndCounted() throws Exception {
        cgroup.apply(memory(16 * M, 16 * M)); // total == memory: memory.swap.max 0
        assertEquals("0", read("memory.swap.max"));
        assertEquals("" + 16 * M, read("memory.max"));
        assertEquals(new OomEvents(0, 0, false), cgroup.oomEvents());
        io.jrunc.cgroups.OomNotifier notifier = cgroup.oomNotifier().orElseThrow();
        try {
            short pri = io.jrunc.bindings.FileDescriptors.POLLPRI;
            assertEquals(0, io.jrunc.bindings.FileDescriptors.poll(notifier.fd(), notifier.events(), 100), "no change yet");
            // dd allocates its 64M block and touches it as it reads: far past memory.max, and no swap allowed
            Process hog = placedShell("exec dd if=/dev/zero of=/dev/null bs=64M count=1");
            assertTrue(hog.waitFor(60, TimeUnit.SECONDS), "the hog was not killed");
            assertEquals(128 + SIGKILL, hog.exitValue(), "killed by SIGKILL");
            short revents = io.jrunc.bindings.FileDescriptors.poll(notifier.fd(), notifier.events(), 10_000);
            assertEquals(pri, (short) (revents & pri), "memory.events flagged changed: " + revents);
            // memory.events may change once more as the killed hog's exit is counted: rearm until it is
            // quiet, which a notifier that never clears its flag would never be
            int rearms = 0;
            do {
                notifier.rearm();
            } while (io.jrunc.bindings.FileDescriptors.poll(notifier.fd(), notifier.events(), 100) != 0 && ++rearms < 10);
            assertEquals(0, io.jrunc.bindings.FileDescriptors.poll(notifier.fd(), notifier.events(), 100), "read again: not flagged");
        } finally {
            notifier.close();
        }
        OomEvents events = cgroup.oomEvents();
        assertTrue(events.oomKill() >= 1 && events.oom() >= 1, events.toString());
        assertTrue(read("memory.events").contains("oom_kill " + events.oomKill()), read("memory.events"));
        assertEquals(16 * M, Long.parseLong(read("memory.peak")), "the peak reached memory.max");
    }

    private String deviceProbe() throws Exception {
        Process sh = placedShell("echo > /dev/null && echo null-ok; head -c1 /dev/zero >/dev/null && echo zero-read-ok;"
                + " echo x > /dev/zero || echo zero-write-denied; head -c1 /dev/urandom >/dev/null || echo urandom-denied;"
                + " rm -f /tmp/null-" + dir.getFileName() + " /tmp/zero-" + dir.getFileName() + ";"
                + " mknod /tmp/null-" + dir.getFileName() + " c 1 3 && echo mknod-null-ok;"
                + " mknod /tmp/zero-" + dir.getFileName() + " c 1 5 || echo mknod-zero-denied");
        String output = new String(sh.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(sh.waitFor(30, TimeUnit.SECONDS));
        return output;
    }

    @Test
    void theBpfDeviceProgramDeniesWhatTheRulesDoNotAllow() throws Exception {
        // deny all, then /dev/null rwm and /dev/zero read-only: runc's emulator order, as a BPF program
        cgroup.apply(new LinuxResources(List.of(new LinuxDeviceCgroup(false, null, null, null, "rwm"),
                new LinuxDeviceCgroup(true, "c", 1L, 3L, "rwm"), new LinuxDeviceCgroup(true, "c", 1L, 5L, "r")),
                null, null, null, null, null, null, null, null));
        String output = deviceProbe();
        for (String expected : List.of("null-ok", "zero-read-ok", "zero-write-denied", "urandom-denied",
                "mknod-null-ok", "mknod-zero-denied")) {
            assertTrue(output.contains(expected), expected + " in:\n" + output);
        }

        // applying again replaces the program: now everything is allowed, nothing stays denied
        cgroup.apply(new LinuxResources(List.of(new LinuxDeviceCgroup(true, null, null, null, "rwm")),
                null, null, null, null, null, null, null, null));
        String after = deviceProbe();
        assertTrue(after.contains("null-ok") && after.contains("zero-read-ok") && !after.contains("denied"), after);
    }

    /**
     * The rootless rules (Cgroup.createRootless) on cgroup v2: in a subtree the runtime may write (as a
     * delegated one is to its user) the container gets its cgroup and its limits; where it may not (a
     * read-only bind gives EROFS, one of runc's ignorable permission errors) a config without a
     * cgroupsPath gets no cgroup, runs without limits and has a limit refused with the reason, and a
     * config with a cgroupsPath fails.
     */
    @Test
    void rootlessRulesOnAWritableAndAnUnwritableSubtree() throws Exception {
        Cgroup own = Cgroup.createRootless(CgroupsPath.of("/" + PARENT + "/rootless-w", "unused"), true, l -> { });
        try {
            own.apply(memory(64 * M, null));
            assertEquals("" + 64 * M, Files.readString(own.location().directory("").resolve("memory.max")).trim());
        } finally {
            own.destroy();
        }
        Path ro = ROOT.resolve(PARENT).resolve("rootless-ro");
        Files.createDirectories(ro);
        shell("mount --bind " + ro + " " + ro + " && mount -o remount,bind,ro " + ro);
        try {
            CgroupsPath below = CgroupsPath.of("/" + PARENT + "/rootless-ro/c", "unused");
            Cgroup none = Cgroup.createRootless(below, false, l -> { });
            assertEquals(Map.of(), none.location().directories());
            none.apply(new LinuxResources(null, null, null, null, null, null, null, null, null));
            CgroupException refused = assertThrows(CgroupException.class, () -> none.apply(memory(64 * M, null)));
            assertTrue(refused.getMessage().startsWith("cannot set memory limit: container could not join or create"
                    + " cgroup (rootless container: mkdir " + ro.resolve("c") + ": Read-only file system"),
                    refused.getMessage());
            assertThrows(CgroupException.class, () -> Cgroup.createRootless(below, true, l -> { }));
            assertFalse(Files.exists(ro.resolve("c")));
        } finally {
            shell("umount " + ro);
            Files.delete(ro);
        }
    }

    private static void shell(String script) throws Exception {
        Process p = new ProcessBuilder("/bin/sh", "-c", script).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, p.waitFor(), script + ": " + out);
    }

    @FunctionalInterface
    private interface Condition {
        boolean holds() throws Exception;
    }

    private static void waitUntil(Condition condition, long millis) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        while (!condition.holds() && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
    }
}
