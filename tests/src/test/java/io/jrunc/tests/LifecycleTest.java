package io.jrunc.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** create / start / state / kill / delete / run / list, with runc's statuses, wording and exit codes. */
@ExtendWith(JruncExtension.class)
class LifecycleTest {

    /** A container that runs until the test creates /shared/go. */
    static Bundle waitingBundle(Sandbox sb) {
        Bundle b = sb.bundle();
        b.shared();
        return b.sh("echo ready > /shared/ready; while [ ! -e /shared/go ]; do sleep 0.05; done; echo bye > /shared/bye");
    }

    @Test
    void createStartExitDelete(Sandbox sb) throws Exception {
        Bundle b = waitingBundle(sb);
        String id = sb.id("life");
        Path pidFile = sb.file("init.pid");
        Jrunc j = sb.jrunc();

        j.in(b.dir(), "create", "--pid-file", pidFile.toString(), id).ok();
        long pid = Long.parseLong(Files.readString(pidFile).strip());
        sb.sawPid(pid);
        JsonNode created = j.state(id);
        assertEquals("created", created.get("status").asText());
        assertEquals(pid, created.get("pid").asLong(), "state pid matches the pid file");
        assertEquals(id, created.get("id").asText());
        assertEquals(b.dir().toString(), created.get("bundle").asText());
        assertFalse(Host.isZombieOrGone(pid), "created container's process exists");
        assertFalse(Files.exists(b.dir().resolve("shared/ready")), "the program runs before start");
        assertTrue(Files.exists(j.root().resolve(id)), "state directory");

        j.run("start", id).ok();
        assertEquals("ready", Wait.forFile(b.dir().resolve("shared/ready")).strip());
        JsonNode running = j.state(id);
        assertEquals("running", running.get("status").asText());
        assertEquals(pid, running.get("pid").asLong());

        Result table = j.run("list").ok();
        assertTrue(table.stdout().startsWith("ID"), table.stdout());
        String row = table.stdout().lines().filter(l -> l.startsWith(id + " ")).findFirst()
                .orElseThrow(() -> new AssertionError("no row for " + id + " in\n" + table.stdout()));
        assertEquals(List.of(id, Long.toString(pid), "running", b.dir().toString()),
                List.of(row.split("\\s+")).subList(0, 4), row);
        JsonNode list = Jrunc.JSON.readTree(j.run("list", "--format", "json").ok().stdout());
        assertEquals(1, list.size(), list.toString());
        assertEquals(id, list.get(0).get("id").asText());
        assertEquals(pid, list.get(0).get("pid").asLong());
        assertEquals("running", list.get(0).get("status").asText());
        assertEquals(b.dir().toString(), list.get(0).get("bundle").asText());

        Files.writeString(b.dir().resolve("shared/go"), "");
        Wait.forFile(b.dir().resolve("shared/bye"));
        Wait.forExit(pid);
        JsonNode stopped = j.state(id);
        assertEquals("stopped", stopped.get("status").asText());
        assertEquals(0, stopped.get("pid").asLong());

        j.run("delete", id).ok();
        assertEquals(List.of(), sb.leftovers());
    }

    @Test
    void deleteOfRunningContainerNeedsForce(Sandbox sb) {
        Bundle b = waitingBundle(sb);
        String id = sb.id("busy");
        sb.jrunc().in(b.dir(), "run", "--detach", id).ok();
        Result r = sb.jrunc().run("delete", id).exit(1);
        assertTrue(r.stderr().contains("cannot delete container " + id + " that is not stopped: running"), r.stderr());
        sb.jrunc().run("delete", "--force", id).ok();
        assertEquals(List.of(), sb.leftovers());
    }

    @Test
    void stateOfMissingContainer(Sandbox sb) throws Exception {
        Result plain = sb.jrunc().run("state", "nosuch").exit(1);
        assertTrue(plain.stderr().contains("container does not exist"), plain.stderr());
        assertEquals("", plain.stdout());

        Path log = sb.file("log.json");
        Result logged = sb.jrunc().withJsonLog(log).run("state", "nosuch").exit(1);
        assertTrue(logged.stderr().contains("container does not exist"), logged.stderr());
        List<String> lines = Files.readAllLines(log);
        assertEquals(1, lines.size(), lines.toString());
        JsonNode line = Jrunc.JSON.readTree(lines.getFirst());
        assertEquals("error", line.get("level").asText());
        assertEquals("container does not exist", line.get("msg").asText());
        assertTrue(line.get("time").asText().matches("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d.*"), lines.toString());
    }

    /**
     * delete of a missing container removes ROOT/ID as runc does, but only for a valid id: "../x" names
     * a directory outside the root and "" the root itself, and both were once removed.
     */
    @Test
    void deleteTouchesNothingOutsideItsContainersDirectory(Sandbox sb) throws Exception {
        Path victim = Files.createDirectories(sb.dir().resolve("victim"));
        Files.writeString(victim.resolve("keep"), "x");
        Files.createDirectories(sb.jrunc().root());
        for (String id : List.of("../victim", "..")) {
            Result r = sb.jrunc().run("delete", "--force", id).exit(1);
            assertTrue(r.stderr().contains("invalid container ID format"), id + ": " + r.stderr());
        }
        Result empty = sb.jrunc().run("delete", "--force", "").exit(1);
        assertTrue(empty.stderr().contains("container id cannot be empty"), empty.stderr());
        assertTrue(Files.exists(victim.resolve("keep")), "a directory beside the root survives");
        assertTrue(Files.isDirectory(sb.jrunc().root()), "the root survives");
    }

    /** Foreground run exits with the container's status; killed by signal N it exits 128+N. */
    @Test
    void foregroundRunExitStatus(Sandbox sb) throws Exception {
        Bundle exits = sb.bundle().sh("exit 7");
        Bundle sleeps = waitingBundle(sb);
        Path pidFile = sb.file("fg.pid");
        Jrunc.Background fg = sb.background(sb.jrunc().start(sleeps.dir(), "run", "--pid-file", pidFile.toString(),
                sb.id("killed")));
        Result seven = sb.jrunc().in(exits.dir(), "run", sb.id("seven"));
        assertEquals(7, seven.exitCode(), seven.describe("run exits with the container's status"));

        Wait.forFile(sleeps.dir().resolve("shared/ready"));
        long pid = Long.parseLong(Files.readString(pidFile).strip());
        sb.sawPid(pid);
        // from the host: `jrunc kill` would wait for the container lock, which `run` holds (reported)
        assertTrue(ProcessHandle.of(pid).orElseThrow().destroyForcibly());
        Result r = fg.await(Duration.ofSeconds(60));
        assertEquals(128 + 9, r.exitCode(), r.describe("killed by SIGKILL"));
        assertEquals(List.of(), sb.leftovers(), "foreground run deletes its container");
    }

    /** Signal names with and without SIG, in any case, and numbers reach the init process. */
    @Test
    void killBySignalNameAndNumber(Sandbox sb) throws Exception {
        Bundle trap = sb.bundle();
        Path shared = trap.shared();
        trap.sh("trap 'echo USR1 >> /shared/log' USR1; trap 'echo USR2 >> /shared/log' USR2; "
                + "echo ready > /shared/ready; while true; do sleep 0.05; done");
        Bundle other = waitingBundle(sb);
        String a = sb.id("trap");
        String b = sb.id("kill1");
        String c = sb.id("kill2");
        Jrunc j = sb.jrunc();
        Wait.parallel(() -> j.in(trap.dir(), "run", "-d", a).ok(), () -> j.in(other.dir(), "run", "-d", b).ok());
        Wait.forFile(shared.resolve("ready"));

        Path log = shared.resolve("log");
        int expected = 0;
        for (String signal : List.of("SIGUSR1", "usr2", "10")) {
            j.run("kill", a, signal).ok();
            int n = ++expected;
            Wait.until(Duration.ofSeconds(20), "trap for " + signal,
                    () -> Host.read(log) != null && Host.read(log).lines().count() == n);
        }
        assertEquals(List.of("USR1", "USR2", "USR1"), Files.readAllLines(log));

        long pidA = j.state(a).get("pid").asLong();
        sb.sawPid(pidA);
        j.run("kill", a, "KILL").ok();
        Wait.forExit(pidA);
        j.run("delete", a).ok();

        // the same bundle again, now that the first container is gone
        Files.delete(other.dir().resolve("shared/ready"));
        Wait.parallel(() -> j.run("kill", b, "SIGKILL").ok(), () -> j.in(other.dir(), "run", "-d", c).ok());
        Wait.forFile(other.dir().resolve("shared/ready"));
        j.run("kill", c, "kill").ok();
        Wait.parallel(() -> j.run("delete", b), () -> j.run("delete", c)).forEach(Result::ok);
        assertEquals(List.of(), sb.leftovers());
    }
}
