package io.jrunc.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A container process that cannot run. What can be checked before the exec gate fails create with
 * runc's words and leaves nothing behind; what fails after it (the execve itself) is reported by the
 * command that opened the gate (an error line in its log) and ends the process with status 127.
 */
@ExtendWith(JruncExtension.class)
class ProcessFailureTest {

    /**
     * A working directory that is not one, or that does not resolve once the container's /proc is
     * there: create fails, as runc's does, with the reason, and nothing is left. Without and with a
     * seccomp profile (the child is made the same way; the filter's steps differ).
     */
    @Test
    void aWorkingDirectoryThatCannotBeEnteredFailsCreate(Sandbox sb) throws Exception {
        record Case(String cwd, boolean seccomp, String message, String runcReason) {}
        List<Case> cases = List.of(
                new Case("/probe", false, "mkdir /probe: not a directory", "mkdir /probe: not a directory"),
                new Case("/probe/below", false, "mkdir /probe: not a directory", "mkdir /probe: not a directory"),
                new Case("/proc/self/fd/0", false,
                        "chdir to cwd (\"/proc/self/fd/0\") set in config.json failed: not a directory", "not a directory"),
                new Case("/proc/self/fd/1", true,
                        "chdir to cwd (\"/proc/self/fd/1\") set in config.json failed: not a directory", "not a directory"),
                new Case("/proc/nosuch", false,
                        "chdir to cwd (\"/proc/nosuch\") set in config.json failed: no such file or directory",
                        "no such file or directory"));
        Jrunc runc = sb.runc();
        int n = 0;
        for (Case c : cases) {
            Bundle b = sb.bundle().args("true").cwd(c.cwd())
                    .seccomp(c.seccomp() ? Bundle.capturedProfile("podman-default") : null);
            Files.writeString(b.rootfs().resolve("probe"), "a file, not a directory");
            Path log = sb.file("cwd" + (++n) + ".json");
            Result r = sb.jrunc().withJsonLog(log).in(b.dir(), "create", sb.id("cwd")).exit(1);
            FailedCreateTest.assertMessage(r, log, c.message());
            assertEquals(1, r.stderr().strip().lines().count(), r.describe("one line"));

            String runcId = sb.id("runc-cwd");
            Result theirs = runc.in(b.dir(), "create", runcId);
            runc.run("delete", "--force", runcId);
            assertEquals(1, theirs.exitCode(), theirs.describe("runc refuses " + c.cwd() + " too"));
            assertTrue(theirs.stderr().contains(c.runcReason()), theirs.describe("runc's reason"));
        }
        assertEquals(List.of(), sb.leftovers());
        try (var entries = Files.list(sb.jrunc().root())) {
            assertEquals(List.of(), entries.filter(p -> !p.getFileName().toString().equals("@cache")).toList(),
                    "nothing under --root");
        }
    }

    /**
     * Working directories that resolve only in the container's own /proc, and one its user may not
     * enter but root may (runc enters it before it takes the user's identity): the process runs where
     * runc's runs.
     */
    @Test
    void aWorkingDirectoryIsEnteredWhereRuncEntersIt(Sandbox sb) throws Exception {
        record Case(String cwd, boolean asUser) {}
        List<Case> cases = List.of(new Case("/proc/self/cwd", false), new Case("/proc/sys", false),
                new Case("/proc/1/root", false), new Case("/private", true));
        Jrunc runc = sb.runc();
        for (Case c : cases) {
            Bundle b = sb.bundle().sh("pwd; ls -d . >/dev/null 2>&1; echo listed=$?").cwd(c.cwd());
            Files.createDirectory(b.rootfs().resolve("private"), PosixFilePermissions.asFileAttribute(
                    PosixFilePermissions.fromString("rwx------")));
            if (c.asUser()) {
                b.user(1000, 1000);
            }
            Result mine = sb.jrunc().in(b.dir(), "run", sb.id("where")).ok();
            String runcId = sb.id("runc-where");
            Result theirs = runc.in(b.dir(), "run", runcId);
            runc.run("delete", "--force", runcId);
            assertEquals(0, theirs.exitCode(), theirs.describe("runc runs in " + c.cwd()));
            assertEquals(theirs.stdout(), mine.stdout(), mine.describe("the same place as runc for " + c.cwd()));
        }
        assertEquals(List.of(), sb.leftovers());
    }

    /**
     * A program that passes every check create can make and still cannot be executed (not a format
     * the kernel runs; a script whose interpreter is missing): create and start succeed as runc's do,
     * start's log has the reason as an error line, the container is stopped, and the process's status
     * is 127 (what `run` and a foreground `exec` exit with). A detached exec reports it the same way.
     */
    @Test
    void aProgramThatCannotBeExecutedIsReported(Sandbox sb) throws Exception {
        Bundle b = sb.bundle().args("/bad");
        executable(b.rootfs().resolve("bad"), "not a program\n");
        executable(b.rootfs().resolve("badscript"), "#!/no/such/interpreter\n");
        Jrunc j = sb.jrunc();

        String id = sb.id("noexec");
        Path createLog = sb.file("create.json");
        j.withJsonLog(createLog).in(b.dir(), "create", id).ok();
        sb.sawPid(j.state(id).path("pid").asLong());
        Path startLog = sb.file("start.json");
        j.withJsonLog(startLog).run("start", id).ok();
        assertTrue(errors(startLog).stream().anyMatch(m -> m.contains("exec /bad: exec format error")),
                "start's log: " + errors(startLog));
        Wait.until(Duration.ofSeconds(10), "stopped", () -> j.state(id).path("status").asText().equals("stopped"));
        j.run("delete", id).ok();

        record Case(String program, boolean seccomp, String reason) {}
        List<Case> cases = List.of(new Case("/bad", false, "exec /bad: exec format error"),
                new Case("/badscript", false, "exec /badscript: no such file or directory"),
                new Case("/bad", true, "exec /bad: exec format error"));
        int n = 0;
        for (Case c : cases) {
            b.args(c.program()).seccomp(c.seccomp() ? Bundle.capturedProfile("podman-default") : null);
            Path log = sb.file("run" + (++n) + ".json");
            Result r = j.withJsonLog(log).in(b.dir(), "run", sb.id("run-noexec")).exit(127);
            assertTrue(errors(log).stream().anyMatch(m -> m.contains(c.reason())), r.describe("run's log: " + errors(log)));
        }

        String running = sb.id("host");
        b.args("sleep", "1000").seccomp(null);
        j.in(b.dir(), "run", "--detach", running).ok();
        sb.sawPid(j.state(running).path("pid").asLong());
        Path execLog = sb.file("exec.json");
        j.withJsonLog(execLog).run("exec", running, "/bad").exit(127);
        assertTrue(errors(execLog).stream().anyMatch(m -> m.contains("exec /bad: exec format error")),
                "exec's log: " + errors(execLog));
        Path detachedLog = sb.file("exec-d.json");
        j.withJsonLog(detachedLog).run("exec", "--detach", running, "/badscript").ok();
        assertTrue(errors(detachedLog).stream().anyMatch(m -> m.contains("exec /badscript: no such file or directory")),
                "exec -d's log: " + errors(detachedLog));
        j.run("delete", "--force", running).ok();
        assertEquals(List.of(), sb.leftovers());
    }

    private static void executable(Path file, String content) throws Exception {
        Files.writeString(file, content);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
    }

    /** The msg of every error line of a JSON log. */
    private static List<String> errors(Path log) throws Exception {
        List<String> out = new ArrayList<>();
        if (!Files.exists(log)) {
            return out;
        }
        for (String line : Files.readAllLines(log)) {
            JsonNode entry = Jrunc.JSON.readTree(line);
            if (entry.path("level").asText().equals("error")) {
                out.add(entry.path("msg").asText());
            }
        }
        return out;
    }
}
