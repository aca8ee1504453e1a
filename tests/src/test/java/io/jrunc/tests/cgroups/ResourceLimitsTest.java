package io.jrunc.tests.cgroups;

import static io.jrunc.tests.cgroups.Support.MIB;
import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.jrunc.tests.Bundle;
import io.jrunc.tests.Facts;
import io.jrunc.tests.Host;
import io.jrunc.tests.JruncExtension;
import io.jrunc.tests.Sandbox;
import io.jrunc.tests.Wait;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * One container with memory, pids, cpu, cpuset and (runc's default) device limits: every limit read
 * back from the container's cgroup directories on the host, seen by the container in its own cgroup
 * files, and enforced where that can be observed cheaply (cpuset affinity, CFS throttling, a denied
 * block device); `events --stats` reports the same cgroup.
 */
@ExtendWith(JruncExtension.class)
class ResourceLimitsTest {

    /**
     * A block device of this host that root can open here, as "major minor": inside the container only
     * the device cgroup stands between root and it. (Not every one can be opened: on the build VM the
     * root disk refuses with EPERM to root on the host too.)
     */
    static String openableBlockDevice() throws IOException {
        try (Stream<Path> s = Files.list(Path.of("/sys/class/block"))) {
            for (Path p : s.sorted().toList()) {
                String dev = Host.read(p.resolve("dev"));
                Path node = Path.of("/dev", p.getFileName().toString());
                if (dev == null || Files.exists(p.resolve("partition")) || !Files.exists(node)) {
                    continue;
                }
                try (var c = Files.newByteChannel(node, StandardOpenOption.READ)) {
                    c.read(ByteBuffer.allocate(1));
                    return dev.strip().replace(':', ' ');
                } catch (IOException notThisOne) {
                    // try the next
                }
            }
        }
        throw new AssertionError("no block device this host lets root open and read");
    }

    @Test
    void limitsAreWrittenSeenInsideAndEnforced(Sandbox sb) throws Exception {
        int cpus = Runtime.getRuntime().availableProcessors();
        String cpu = Integer.toString(cpus - 1); // the last CPU: not what an unrestricted process gets
        String disk = openableBlockDevice();
        Bundle b = sb.bundle();
        Support.assertDenyAllFirst(b);
        Support.resources(b, """
                {"memory": {"limit": %d, "swap": %d, "reservation": %d},
                 "pids": {"limit": 40},
                 "cpu": {"shares": 512, "quota": 10000, "period": 100000, "cpus": "%s"}}
                """.formatted(64 * MIB, 96 * MIB, 32 * MIB, cpu));
        // CAP_MKNOD and a tmpfs without nodev: what stops the block device below is the device cgroup only
        Support.addCapability(b, "CAP_MKNOD");
        b.mount("/tmp", "tmpfs", "tmpfs", "nosuid", "mode=1777");
        b.shared();
        String cg = "/sys/fs/cgroup";
        b.sh("{ echo \"memlimit $(cat " + cg + "/memory/memory.limit_in_bytes)\"; "
                + "echo \"memsw $(cat " + cg + "/memory/memory.memsw.limit_in_bytes)\"; "
                + "echo \"soft $(cat " + cg + "/memory/memory.soft_limit_in_bytes)\"; "
                + "echo \"pidsmax $(cat " + cg + "/pids/pids.max)\"; "
                + "echo \"shares $(cat " + cg + "/cpu/cpu.shares)\"; "
                + "echo \"quota $(cat " + cg + "/cpu/cpu.cfs_quota_us) $(cat " + cg + "/cpu/cpu.cfs_period_us)\"; "
                + "echo \"cpuset $(cat " + cg + "/cpuset/cpuset.cpus)\"; "
                + "echo \"affinity $(grep Cpus_allowed_list /proc/self/status | cut -f2)\"; "
                + "echo \"nproc $(nproc)\"; "
                + "mknod /tmp/disk b " + disk + "; echo \"mknod $?\"; "
                + "head -c1 /tmp/disk >/dev/null 2>/tmp/err; echo \"diskread $?\"; echo \"diskerr $(cat /tmp/err)\"; "
                + "mknod /tmp/zero c 1 5; echo \"zero2 $(head -c 3 /tmp/zero | wc -c)\"; "
                + "echo \"zero $(head -c 5 /dev/zero | wc -c)\"; "
                + "echo x > /dev/null; echo \"null $?\"; "
                + "} > /shared/facts.tmp 2>&1; mv /shared/facts.tmp /shared/facts; "
                + "while :; do :; done");
        String id = sb.id("limits");
        Path pidFile = sb.file("init.pid");
        sb.jrunc().in(b.dir(), "run", "--detach", "--pid-file", pidFile.toString(), id).ok();
        long pid = Support.pid(pidFile);
        sb.sawPid(pid);
        HostCgroups host = HostCgroups.of(pid);
        Facts inside = new Facts(Wait.forFile(b.dir().resolve("shared/facts")));

        // the same directory name in every hierarchy, and it is the container's own (named by its id)
        assertTrue(host.dir("memory").endsWith(id) && host.dir("pids").endsWith(id) && host.dir("devices").endsWith(id),
                host.toString());
        // both groups report, so one run shows everything that is wrong
        assertAll(() -> assertAll("host cgroup files " + host,
                () -> assertEquals(64 * MIB, host.number("memory", "memory.limit_in_bytes")),
                () -> assertEquals(96 * MIB, host.number("memory", "memory.memsw.limit_in_bytes"), "v1 takes the memory+swap total as is"),
                () -> assertEquals(32 * MIB, host.number("memory", "memory.soft_limit_in_bytes")),
                () -> assertEquals("40", host.read("pids", "pids.max")),
                () -> assertEquals(512, host.number("cpu", "cpu.shares")),
                () -> assertEquals(10000, host.number("cpu", "cpu.cfs_quota_us")),
                () -> assertEquals(100000, host.number("cpu", "cpu.cfs_period_us")),
                () -> assertEquals(cpu, host.read("cpuset", "cpuset.cpus")),
                () -> {
                    List<String> devices = host.read("devices", "devices.list").lines().toList();
                    assertFalse(devices.contains("a *:* rwm"), "deny-all rule applied: " + devices);
                    assertTrue(devices.containsAll(List.of("c *:* m", "b *:* m", "c 1:3 rwm", "c 1:5 rwm", "c 1:9 rwm",
                            "c 136:* rwm", "c 5:2 rwm")), "runc's default allow rules: " + devices);
                    assertFalse(devices.stream().anyMatch(l -> l.startsWith("b ") && !l.equals("b *:* m")),
                            "no block device readable: " + devices);
                }), () -> assertAll("inside the container\n" + inside,
                () -> assertEquals(Long.toString(64 * MIB), inside.one("memlimit")),
                () -> assertEquals(Long.toString(96 * MIB), inside.one("memsw")),
                () -> assertEquals(Long.toString(32 * MIB), inside.one("soft")),
                () -> assertEquals("40", inside.one("pidsmax")),
                () -> assertEquals("512", inside.one("shares")),
                () -> assertEquals("10000 100000", inside.one("quota")),
                () -> assertEquals(cpu, inside.one("cpuset")),
                () -> assertEquals(cpu, inside.one("affinity"), "the process runs only on the cpuset's CPU"),
                () -> assertEquals("1", inside.one("nproc")),
                () -> assertEquals("0", inside.one("mknod"), "mknod is allowed (CAP_MKNOD, runc's 'b *:* m')"),
                () -> assertTrue(!inside.one("diskread").equals("0")
                        && inside.one("diskerr").contains("Operation not permitted"),
                        "reading block device " + disk + " (root on the host can) is denied by the device cgroup"),
                () -> assertEquals("3", inside.one("zero2"), "an allowed device works through a node of its own"),
                () -> assertEquals("5", inside.one("zero")),
                () -> assertEquals("0", inside.one("null"))));

        // CFS bandwidth: the busy loop gets 10 ms per 100 ms period and is throttled
        long usage0 = host.number("cpuacct", "cpuacct.usage");
        long t0 = System.nanoTime();
        Support.sleep(1000);
        long used = host.number("cpuacct", "cpuacct.usage") - usage0;
        long wall = System.nanoTime() - t0;
        long throttled = host.field("cpu", "cpu.stat", "nr_throttled");
        assertTrue(throttled > 0, "busy loop throttled by the quota: nr_throttled " + throttled);
        assertTrue(used < wall / 10 + 150_000_000L, "CPU " + used / 1_000_000 + " ms in " + wall / 1_000_000
                + " ms of wall time: at most ~10% with quota 10000/100000");

        JsonNode stats = Support.json(sb.jrunc().run("events", "--stats", id).ok().stdout());
        assertAll("events --stats\n" + stats.toPrettyString(),
                () -> assertEquals("stats", stats.path("type").asText()),
                () -> assertEquals(id, stats.path("id").asText()),
                () -> assertTrue(stats.at("/data/memory/usage/usage").asLong() > 0),
                () -> assertEquals(64 * MIB, stats.at("/data/memory/usage/limit").asLong()),
                () -> assertEquals(96 * MIB, stats.at("/data/memory/swap/limit").asLong()),
                () -> assertTrue(stats.at("/data/pids/current").asLong() >= 1),
                () -> assertEquals(40, stats.at("/data/pids/limit").asLong()),
                () -> assertTrue(stats.at("/data/cpu/usage/total").asLong() > 0),
                () -> assertTrue(stats.at("/data/cpu/throttling/throttledPeriods").asLong() > 0));

        sb.jrunc().run("delete", "--force", id).ok();
        assertEquals(List.of(), sb.leftovers());
    }
}
