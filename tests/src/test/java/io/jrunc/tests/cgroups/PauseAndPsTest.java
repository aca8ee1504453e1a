package io.jrunc.tests.cgroups;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrunc.tests.Bundle;
import io.jrunc.tests.Host;
import io.jrunc.tests.Jrunc;
import io.jrunc.tests.JruncExtension;
import io.jrunc.tests.Sandbox;
import io.jrunc.tests.Wait;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * `ps` (json, table, ps arguments) lists exactly the container's processes, an exec'd one included;
 * `pause` freezes them all (a busy loop's CPU time stands still, the kernel shows them frozen) and
 * `resume` thaws them; `delete --force` of a paused container leaves nothing behind. A created
 * container can be paused and resumed too (runc allows it) and then starts normally.
 */
@ExtendWith(JruncExtension.class)
class PauseAndPsTest {

    @Test
    void psPauseResumeAndForcedDeleteOfAPausedContainer(Sandbox sb) throws Exception {
        Bundle b = sb.bundle().sh("(while :; do :; done) & exec sleep 1000");
        Support.resources(b, "{\"cpu\": {\"quota\": 20000, \"period\": 100000}}"); // spare the host's CPUs
        String id = sb.id("pause");
        Path pidFile = sb.file("init.pid");
        Jrunc j = sb.jrunc();
        j.in(b.dir(), "run", "--detach", "--pid-file", pidFile.toString(), id).ok();
        long init = Support.pid(pidFile);
        sb.sawPid(init);
        Path execPidFile = sb.file("exec.pid");
        j.run("exec", "--detach", "--pid-file", execPidFile.toString(), id, "sleep", "999").ok();
        long exec = Support.pid(execPidFile);
        sb.sawPid(exec);
        HostCgroups host = HostCgroups.of(init);
        // the busy loop: the one other process in the freezer cgroup (read from the host, not from jrunc)
        Wait.until(Duration.ofSeconds(20), "three processes", () -> procs(host).size() == 3);
        Set<Long> expected = procs(host);
        long busy = expected.stream().filter(p -> p != init && p != exec).findFirst().orElseThrow();
        sb.sawPid(busy);
        assertEquals("sh", Host.comm(busy));
        assertEquals(host.read("freezer", "cgroup.procs"), host.read("pids", "cgroup.procs"), "same processes everywhere");

        // ps
        Set<Long> json = new TreeSet<>();
        Support.json(j.run("ps", "--format", "json", id).ok().stdout()).forEach(n -> json.add(n.asLong()));
        assertEquals(expected, json, "ps --format json");
        List<String> table = j.run("ps", id).ok().stdout().lines().toList();
        assertTrue(table.getFirst().matches("UID\\s+PID\\s+PPID\\s+.*CMD"), "ps -ef header: " + table);
        assertEquals(expected, pidColumn(table, 1), "ps table rows: " + table);
        List<String> custom = j.run("ps", id, "-o", "pid,stat,comm").ok().stdout().lines().toList();
        assertTrue(custom.getFirst().trim().matches("PID\\s+STAT\\s+COMMAND"), "ps arguments passed on: " + custom);
        assertEquals(expected, pidColumn(custom, 0), custom.toString());

        // running: the busy loop uses CPU, the sleeps sleep
        long t0 = Support.cpuTicks(busy);
        Wait.until(Duration.ofSeconds(10), "the busy loop to use CPU", () -> Support.cpuTicks(busy) > t0);
        assertTrue(Support.state(init).startsWith("S"), Support.state(init));

        j.run("pause", id).ok();
        assertEquals("paused", Support.status(sb, id));
        assertEquals("FROZEN", host.read("freezer", "freezer.state"));
        Map<Long, String> frozen = states(expected);
        // this kernel (v1 freezer) shows frozen tasks in D; the sleeps would be S and the loop R otherwise
        assertTrue(frozen.values().stream().allMatch(s -> s.startsWith("D")), "frozen states " + frozen);
        long t1 = Support.cpuTicks(busy);
        Support.sleep(700);
        assertEquals(t1, Support.cpuTicks(busy), "no CPU time while paused");
        assertEquals("paused", Support.status(sb, id), "still paused");

        j.run("resume", id).ok();
        assertEquals("running", Support.status(sb, id));
        assertEquals("THAWED", host.read("freezer", "freezer.state"));
        long t2 = Support.cpuTicks(busy);
        Wait.until(Duration.ofSeconds(10), "the busy loop to run again", () -> Support.cpuTicks(busy) > t2);
        Map<Long, String> thawed = states(expected);
        assertNotEquals("D", thawed.get(init).substring(0, 1), "thawed states " + thawed);

        // a second pause, then delete --force of the paused container: everything goes
        j.run("pause", id).ok();
        assertEquals("paused", Support.status(sb, id));
        j.run("delete", "--force", id).ok();
        Support.waitGone(new ArrayList<>(expected));
        assertAll(() -> assertEquals(List.of(), sb.leftovers()),
                () -> assertTrue(!java.nio.file.Files.exists(host.dir("freezer")), "freezer cgroup removed"));
    }

    /**
     * The freezer interrupts the created container's process in its blocked open of the exec gate, and
     * the kernel restarts the open on thaw, after the container's real /proc has covered the tmpfs the
     * gate was first opened through: the process must still reach the gate, not die (it did, exit 127).
     */
    @Test
    void aCreatedContainerPausedAndResumedStillStarts(Sandbox sb) throws Exception {
        Bundle b = sb.bundle().sh("echo started > /tmp/mark; exec sleep 1000");
        String id = sb.id("pause-created");
        Path pidFile = sb.file("init.pid");
        Jrunc j = sb.jrunc();
        j.in(b.dir(), "create", "--pid-file", pidFile.toString(), id).ok();
        long init = Support.pid(pidFile);
        sb.sawPid(init);
        j.run("pause", id).ok();
        assertEquals("paused", Support.status(sb, id), "paused takes precedence over created, as in runc");
        j.run("resume", id).ok();
        assertEquals("created", Support.status(sb, id), "still waiting at the exec gate");
        assertTrue(!Host.isZombieOrGone(init), "the process survived the thaw");
        j.run("start", id).ok();
        Wait.until(Duration.ofSeconds(10), "the program to run",
                () -> j.run("exec", id, "cat", "/tmp/mark").stdout().strip().equals("started"));
        assertEquals("running", Support.status(sb, id));
        j.run("delete", "--force", id).ok();
        Support.waitGone(List.of(init));
        assertEquals(List.of(), sb.leftovers());
    }

    private static Set<Long> procs(HostCgroups host) {
        Set<Long> pids = new TreeSet<>();
        host.read("freezer", "cgroup.procs").lines().filter(l -> !l.isBlank()).forEach(l -> pids.add(Long.parseLong(l.strip())));
        return pids;
    }

    private static Set<Long> pidColumn(List<String> table, int column) {
        Set<Long> pids = new TreeSet<>();
        for (String row : table.subList(1, table.size())) {
            pids.add(Long.parseLong(row.trim().split("\\s+")[column]));
        }
        return pids;
    }

    private static Map<Long, String> states(Set<Long> pids) {
        Map<Long, String> m = new LinkedHashMap<>();
        pids.forEach(p -> m.put(p, Support.state(p)));
        return m;
    }
}
