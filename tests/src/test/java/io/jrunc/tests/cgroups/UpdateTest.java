package io.jrunc.tests.cgroups;

import static io.jrunc.tests.cgroups.Support.MIB;
import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrunc.tests.Bundle;
import io.jrunc.tests.Facts;
import io.jrunc.tests.Jrunc;
import io.jrunc.tests.JruncExtension;
import io.jrunc.tests.Result;
import io.jrunc.tests.Sandbox;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * `update` of a running container, read back from the host's cgroup files after each call: runc's
 * flags, a swap-only `--resources -` that must be converted against the stored memory limit, and
 * later updates that leave earlier ones in force.
 */
@ExtendWith(JruncExtension.class)
class UpdateTest {

    @Test
    void updatesAreMergedIntoTheStoredResources(Sandbox sb) throws Exception {
        Bundle b = sb.bundle().args("sleep", "1000");
        Support.resources(b, "{\"pids\": {\"limit\": 100}, \"cpu\": {\"shares\": 1024}}");
        String id = sb.id("update");
        Path pidFile = sb.file("init.pid");
        Jrunc j = sb.jrunc();
        j.in(b.dir(), "run", "--detach", "--pid-file", pidFile.toString(), id).ok();
        long pid = Support.pid(pidFile);
        sb.sawPid(pid);
        HostCgroups host = HostCgroups.of(pid);
        assertEquals("100", host.read("pids", "pids.max"));

        j.run("update", "--memory", "64m", "--memory-swap", "128m", id).ok();
        assertEquals(64 * MIB, host.number("memory", "memory.limit_in_bytes"));
        assertEquals(128 * MIB, host.number("memory", "memory.memsw.limit_in_bytes"));

        // swap only: the total changes, the limit stays. (On cgroup v1 the kernel keeps the limit even
        // without the merge; the conversion that needs the stored limit is v2's, checked in the VM guest.)
        Result swapOnly = Support.withStdin(sb, "{\"memory\":{\"swap\":" + 192 * MIB + "}}",
                "update", "--resources", "-", id);
        swapOnly.ok();
        assertEquals(192 * MIB, host.number("memory", "memory.memsw.limit_in_bytes"), "memory+swap total 192M");
        assertEquals(64 * MIB, host.number("memory", "memory.limit_in_bytes"), "limit still 64M");

        j.run("update", "--pids-limit", "25", id).ok();
        j.run("update", "--cpu-share", "300", "--cpu-quota", "30000", "--cpu-period", "60000", id).ok();
        assertAll("after --pids-limit and --cpu-*",
                () -> assertEquals("25", host.read("pids", "pids.max")),
                () -> assertEquals(300, host.number("cpu", "cpu.shares")),
                () -> assertEquals(30000, host.number("cpu", "cpu.cfs_quota_us")),
                () -> assertEquals(60000, host.number("cpu", "cpu.cfs_period_us")),
                () -> assertEquals(64 * MIB, host.number("memory", "memory.limit_in_bytes"), "memory untouched"),
                () -> assertEquals(192 * MIB, host.number("memory", "memory.memsw.limit_in_bytes"), "memsw untouched"));

        // lowering the limit below the current total but keeping the total: limit first, as the kernel needs
        j.run("update", "--memory", "32m", id).ok();
        assertEquals(32 * MIB, host.number("memory", "memory.limit_in_bytes"));
        assertEquals(192 * MIB, host.number("memory", "memory.memsw.limit_in_bytes"));

        // the container sees its own new limits
        Facts inside = new Facts(j.run("exec", id, "sh", "-c",
                "echo \"limit $(cat /sys/fs/cgroup/memory/memory.limit_in_bytes)\"; "
                        + "echo \"memsw $(cat /sys/fs/cgroup/memory/memory.memsw.limit_in_bytes)\"; "
                        + "echo \"pids $(cat /sys/fs/cgroup/pids/pids.max)\"").ok().stdout());
        assertEquals(Long.toString(32 * MIB), inside.one("limit"), inside.raw());
        assertEquals(Long.toString(192 * MIB), inside.one("memsw"), inside.raw());
        assertEquals("25", inside.one("pids"), inside.raw());

        // a total below the limit is the kernel's error, reported, and nothing is stored from it
        Result bad = j.run("update", "--memory-swap", "16m", id);
        assertTrue(bad.exitCode() != 0, bad.describe("memory+swap below memory must fail"));
        assertEquals(32 * MIB, host.number("memory", "memory.limit_in_bytes"));
        assertEquals(192 * MIB, host.number("memory", "memory.memsw.limit_in_bytes"));
        j.run("update", "--pids-limit", "30", id).ok();
        assertEquals(192 * MIB, host.number("memory", "memory.memsw.limit_in_bytes"), "the refused total was not stored");

        j.run("delete", "--force", id).ok();
        assertEquals(List.of(), sb.leftovers());
    }
}
