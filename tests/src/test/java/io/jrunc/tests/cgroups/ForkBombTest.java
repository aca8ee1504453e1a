package io.jrunc.tests.cgroups;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.jrunc.tests.Bundle;
import io.jrunc.tests.Facts;
import io.jrunc.tests.Host;
import io.jrunc.tests.Jrunc;
import io.jrunc.tests.JruncExtension;
import io.jrunc.tests.Sandbox;
import io.jrunc.tests.Wait;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A fork bomb (a shell starting 200 sleeps) in a container with pids.max 16 is stopped at the limit:
 * the shell sees fork fail, the container holds at most 16 processes, the kernel counts the refusals.
 * Then `kill --all` signals every process of the cgroup, not just init: TERM ends all but init (which,
 * as pid 1 of its namespace, ignores it), KILL ends the rest.
 */
@ExtendWith(JruncExtension.class)
class ForkBombTest {
    static final int LIMIT = 16;

    @Test
    void forkBombStopsAtPidsMaxAndKillAllEndsIt(Sandbox sb) throws Exception {
        Bundle b = sb.bundle();
        Support.resources(b, "{\"pids\": {\"limit\": " + LIMIT + "}}");
        b.shared();
        // Bounded (200), so that without the limit the test fails instead of exhausting the host. The bomb
        // runs in a child shell (ash gives up on a failed fork); init then counts the processes with a
        // glob, which needs no fork, and waits without forking either.
        b.sh("sh -c 'i=0; while [ $i -lt 200 ]; do sleep 1000 & i=$((i+1)); done' 2>/shared/bomb.err; "
                + "echo \"bombrc $?\" > /shared/facts.tmp; "
                + "set -- /proc/[0-9]*; echo \"procs $#\" >> /shared/facts.tmp; "
                + "mv /shared/facts.tmp /shared/facts; exec sleep 1000");
        String id = sb.id("bomb");
        Path pidFile = sb.file("init.pid");
        Jrunc j = sb.jrunc();
        j.in(b.dir(), "run", "--detach", "--pid-file", pidFile.toString(), id).ok();
        long pid = Support.pid(pidFile);
        sb.sawPid(pid);
        HostCgroups host = HostCgroups.of(pid);
        Facts inside = new Facts(Wait.forFile(b.dir().resolve("shared/facts")));
        String bombErr = Host.read(b.dir().resolve("shared/bomb.err"));

        // The script's last helper processes (mv) may still be exiting: compare ps with pids.current
        // only at a moment when the count is the same before and after the ps call.
        long settled = -1;
        List<Long> pids = new ArrayList<>();
        for (int attempt = 0; attempt < 20; attempt++) {
            long before = host.number("pids", "pids.current");
            pids.clear();
            JsonNode ps = Support.json(j.run("ps", "--format", "json", id).ok().stdout());
            ps.forEach(n -> pids.add(n.asLong()));
            settled = host.number("pids", "pids.current");
            if (before == settled) {
                break;
            }
            Thread.sleep(100);
        }
        long current = settled;
        pids.forEach(sb::sawPid);
        int procsInside = Integer.parseInt(inside.one("procs"));
        assertAll("inside\n" + inside + "\nbomb stderr\n" + bombErr,
                () -> assertEquals(Integer.toString(LIMIT), host.read("pids", "pids.max")),
                () -> assertTrue(bombErr != null && bombErr.contains("can't fork"), "the shell saw fork fail"),
                () -> assertTrue(procsInside <= LIMIT && procsInside >= LIMIT - 2,
                        procsInside + " processes inside: the bomb filled the cgroup up to pids.max " + LIMIT),
                () -> assertTrue(current <= LIMIT && current >= LIMIT - 2, "pids.current " + current),
                () -> assertTrue(host.field("pids", "pids.events", "max") > 0, "the kernel refused forks"),
                () -> assertEquals(current, pids.size(), "ps --format json lists the cgroup's processes: " + pids),
                () -> assertTrue(pids.contains(pid), "init among " + pids));

        // TERM: init (pid 1 of its namespace, no handler) ignores it, every other process dies of it; a
        // kill of init alone would leave them all
        List<Long> others = pids.stream().filter(p -> p != pid).toList();
        j.run("kill", "--all", id, "TERM").ok();
        Support.waitGone(others);
        assertTrue(!Host.isZombieOrGone(pid), "init ignores SIGTERM");
        assertEquals("running", Support.status(sb, id));

        j.run("kill", "--all", id, "KILL").ok();
        Support.waitGone(pids);
        Wait.until(Duration.ofSeconds(20), "an empty pids cgroup", () -> host.read("pids", "cgroup.procs").isEmpty());
        assertEquals("stopped", Support.status(sb, id));
        j.run("delete", id).ok();
        assertEquals(List.of(), sb.leftovers());
    }
}
