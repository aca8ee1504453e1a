package io.jrunc.shim.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrunc.cgroups.Cgroup;
import io.jrunc.cgroups.CgroupMode;
import io.jrunc.cgroups.CgroupsPath;
import io.jrunc.spec.LinuxMemory;
import io.jrunc.spec.LinuxResources;
import io.jrunc.testsupport.HostLimitation;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The OOM watch on a real cgroup of this host: it looks at a task's counters when the kernel's OOM
 * notice comes, and not before (no clock runs while every task has a notifier).
 */
class OomWatchTest {
    private static final long M = 1024 * 1024;

    @Test
    void aTaskIsLookedAtWhenItsCgroupHasAnOomAndNotBefore() throws Exception {
        HostLimitation.skipUnless(CgroupMode.detect() != CgroupMode.UNIFIED,
                "a pure cgroup v2 host has no v1 memory controller (v2's notice is tested in the VM's cgroup suite)");
        Cgroup cgroup = Cgroup.create(CgroupsPath.of("/jrunc-oomwatch-" + ProcessHandle.current().pid(), "unused"));
        OomWatch<String> watch = null;
        Process hog = null;
        try {
            cgroup.apply(new LinuxResources(null, new LinuxMemory(16 * M, null, 16 * M, null, null, null, null, null, null),
                    null, null, null, null, null, null, null));
            AtomicInteger looks = new AtomicInteger();
            CountDownLatch looked = new CountDownLatch(1);
            watch = OomWatch.start(task -> {
                try {
                    return cgroup.oomNotifier();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }, task -> {
                looks.incrementAndGet();
                looked.countDown();
            });
            watch.add("task");
            Thread.sleep(3 * OomWatch.PERIOD_MILLIS);
            assertEquals(0, looks.get(), "looked at before any OOM: a clock, not the kernel's notice");

            hog = new ProcessBuilder("sh", "-c", "read go; exec tail /dev/zero").start();
            cgroup.addProcess(hog.pid());
            hog.getOutputStream().write("go\n".getBytes(StandardCharsets.US_ASCII));
            hog.getOutputStream().flush();
            assertTrue(hog.waitFor(30, TimeUnit.SECONDS), "the hog was not killed");
            assertEquals(137, hog.exitValue(), "OOM-killed");
            assertTrue(looked.await(10, TimeUnit.SECONDS), "no look after the OOM kill");
            assertTrue(cgroup.oomEvents().oomKill() >= 1);

            int after = looks.get();
            watch.remove("task");
            assertEquals(after + 1, looks.get(), "remove takes a last look");
        } finally {
            if (watch != null) {
                watch.stop();
            }
            if (hog != null) {
                hog.destroyForcibly().waitFor();
            }
            cgroup.destroy();
        }
    }

    @Test
    void aTaskWithoutANotifierIsLookedAtOnTheClock() throws Exception {
        CountDownLatch looked = new CountDownLatch(2);
        OomWatch<String> watch = OomWatch.start(task -> Optional.empty(), task -> looked.countDown());
        try {
            watch.add("no-memory-controller");
            assertTrue(looked.await(10 * OomWatch.PERIOD_MILLIS, TimeUnit.MILLISECONDS), "not looked at twice");
        } finally {
            watch.stop();
        }
    }
}
