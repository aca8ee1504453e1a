package io.jrunc.tests.cgroups;

import static io.jrunc.tests.cgroups.Support.MIB;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.jrunc.tests.Bundle;
import io.jrunc.tests.Jrunc;
import io.jrunc.tests.JruncExtension;
import io.jrunc.tests.Result;
import io.jrunc.tests.Sandbox;
import io.jrunc.tests.Wait;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A memory hog in a container whose memory and memory+swap limits are both 16M is OOM-killed at the
 * limit, and `events`, watching the container as a caller would from before it starts, reports an
 * {"type":"oom"} line for it (also when, as here, the container stops right after the kill).
 */
@ExtendWith(JruncExtension.class)
class OomTest {

    @Test
    void memoryHogIsOomKilledAndReportedAsAnEvent(Sandbox sb) throws Exception {
        Bundle b = sb.bundle();
        Support.resources(b, """
                {"memory": {"limit": %d, "swap": %d}}
                """.formatted(16 * MIB, 16 * MIB));
        b.shared();
        // the hog is a child, so the shell can say how it ended; then the container stops
        b.sh("tail /dev/zero; echo \"rc $?\" > /shared/rc.tmp; mv /shared/rc.tmp /shared/rc");
        String id = sb.id("oom");
        Path pidFile = sb.file("init.pid");
        Jrunc j = sb.jrunc();
        j.in(b.dir(), "create", "--pid-file", pidFile.toString(), id).ok();
        long pid = Support.pid(pidFile);
        sb.sawPid(pid);
        HostCgroups host = HostCgroups.of(pid);
        assertEquals(16 * MIB, host.number("memory", "memory.limit_in_bytes"));
        assertEquals(16 * MIB, host.number("memory", "memory.memsw.limit_in_bytes"));
        assertEquals(0, host.field("memory", "memory.oom_control", "oom_kill"));

        Jrunc.Background events = sb.background(j.start(null, "events", "--interval", "200ms", id));
        // events streams stats before the hog runs: it is watching (and start is not blocked by it)
        Wait.until(Duration.ofSeconds(30), "a stats line from events", () -> events.stdoutSoFar().contains("\"stats\""));
        j.run("start", id).ok();

        String rc = Wait.forFile(b.dir().resolve("shared/rc")).strip();
        assertEquals("rc 137", rc, "the hog died of SIGKILL (128+9)");
        assertTrue(host.field("memory", "memory.oom_control", "oom_kill") >= 1, "the kernel's OOM kill counter");

        // events reports the OOM kill (jrunc then ends with the container; runc goes on streaming stats)
        Wait.until(Duration.ofSeconds(30), "an oom event", () -> events.stdoutSoFar().contains("\"oom\""));
        events.process().destroy();
        Result r = events.await(Duration.ofSeconds(30));
        String complete = r.stdout().substring(0, r.stdout().lastIndexOf('\n') + 1); // not a line cut by the kill
        List<JsonNode> lines = complete.lines().map(Support::json).toList();
        List<JsonNode> ooms = lines.stream().filter(l -> l.path("type").asText().equals("oom")).toList();
        assertEquals(1, ooms.size(), "one oom event in\n" + r.stdout());
        assertEquals(id, ooms.getFirst().path("id").asText());
        assertTrue(lines.stream().allMatch(l -> List.of("oom", "stats").contains(l.path("type").asText())
                && l.path("id").asText().equals(id)), r.stdout());
        assertEquals("stopped", Support.status(sb, id));

        j.run("delete", id).ok();
        assertEquals(List.of(), sb.leftovers());
    }
}
