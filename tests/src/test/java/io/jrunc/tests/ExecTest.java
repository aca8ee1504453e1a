package io.jrunc.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** exec: joins the container, takes runc's flags and process files, reports the command's status. */
@ExtendWith(JruncExtension.class)
class ExecTest {

    @Test
    void execJoinsTheContainer(Sandbox sb) throws Exception {
        Bundle b = sb.bundle().hostname("jt-exec").args("sleep", "1000");
        String id = sb.id("exec");
        Jrunc j = sb.jrunc();
        Path initPidFile = sb.file("init.pid");
        j.in(b.dir(), "run", "--detach", "--pid-file", initPidFile.toString(), id).ok();
        long init = Long.parseLong(Files.readString(initPidFile).strip());
        sb.sawPid(init);

        Path processFile = sb.file("process.json");
        Files.writeString(processFile, """
                {"terminal": false, "user": {"uid": 0, "gid": 0}, "cwd": "/",
                 "args": ["sh", "-c", "echo from-file $X; exit 5"],
                 "env": ["PATH=/usr/bin:/bin", "X=y"]}
                """);
        Path detachedPidFile = sb.file("detached.pid");
        List<Result> results = Wait.parallel(
                () -> j.run("exec", id, "sh", "-c", "echo \"pidns $(readlink /proc/self/ns/pid)\"; "
                        + "echo \"mntns $(readlink /proc/self/ns/mnt)\"; echo \"hostname $(hostname)\"; exit 3"),
                () -> j.run("exec", "--env", "FOO=bar", "--cwd", "/tmp", "--user", "1000:1000", id, "sh", "-c",
                        "echo \"foo $FOO\"; echo \"cwd $(pwd)\"; echo \"id $(id)\"; "
                                + "grep -E '^(SigBlk|SigIgn|CapEff|NoNewPrivs)' /proc/self/status | sed 's/^/status /'"),
                () -> j.run("exec", "--process", processFile.toString(), id),
                () -> j.run("exec", "--detach", "--pid-file", detachedPidFile.toString(), id, "sleep", "1000"));

        Facts joined = new Facts(results.get(0).exit(3).stdout());
        assertEquals(Host.namespace(init, "pid"), joined.one("pidns"));
        assertEquals(Host.namespace(init, "mnt"), joined.one("mntns"));
        assertEquals("jt-exec", joined.one("hostname"));
        // the container's capability sets, as runc gives an exec'd process (a misread cap_last_cap once
        // left capabilities 5 to 40 in the bounding set)
        Result caps = j.run("exec", id, "grep", "-E", "^Cap(Bnd|Prm)", "/proc/self/status").ok();
        assertEquals(Host.read(Path.of("/proc", Long.toString(init), "status")).lines()
                .filter(l -> l.startsWith("CapBnd") || l.startsWith("CapPrm")).toList(), caps.stdout().lines().toList());

        Facts flags = new Facts(results.get(1).ok().stdout());
        assertEquals("bar", flags.one("foo"));
        assertEquals("/tmp", flags.one("cwd"));
        assertEquals("uid=1000 gid=1000", flags.one("id"));
        Map<String, String> st = flags.status();
        assertEquals("0000000000000000", st.get("SigBlk"), flags.raw());
        assertEquals("0000000000000000", st.get("SigIgn"), flags.raw());
        assertEquals("0000000000000000", st.get("CapEff"), "non-root without ambient capabilities");
        assertEquals("1", st.get("NoNewPrivs"), "the config's noNewPrivileges");

        Result fromFile = results.get(2).exit(5);
        assertEquals("from-file y", fromFile.stdout().strip());

        results.get(3).ok();
        long detached = Long.parseLong(Files.readString(detachedPidFile).strip());
        sb.sawPid(detached);
        assertFalse(Host.isZombieOrGone(detached), "detached exec is running");
        assertEquals(Host.namespace(init, "pid"), Host.namespace(detached, "pid"));
        assertEquals(Host.read(Path.of("/proc", Long.toString(init), "cgroup")),
                Host.read(Path.of("/proc", Long.toString(detached), "cgroup")), "exec joins the container's cgroup");

        j.run("delete", "--force", id).ok();
        assertEquals(List.of(), sb.leftovers());
    }

    /**
     * An exec's working directory must be a directory already, as runc's exec only changes into it: a
     * missing one is chdir's ENOENT (what podman reports as 127) and is not created, a file ENOTDIR.
     */
    @Test
    void execRefusesAWorkingDirectoryThatIsNoDirectoryAndMakesNone(Sandbox sb) throws Exception {
        Bundle b = sb.bundle().args("sleep", "1000");
        String id = sb.id("execcwd");
        Jrunc j = sb.jrunc();
        j.in(b.dir(), "run", "--detach", id).ok();
        Result missing = j.run("exec", "--cwd", "/no/such/dir", id, "pwd");
        assertTrue(missing.exitCode() != 0 && missing.stderr().contains("chdir /no/such/dir: no such file or directory"),
                missing.describe("a refusal naming the directory"));
        assertEquals("", missing.stdout());
        assertTrue(j.run("exec", id, "ls", "-d", "/no").exitCode() != 0, "exec made no directory");
        Result file = j.run("exec", "--cwd", "/bin/sh", id, "pwd");
        assertTrue(file.exitCode() != 0 && file.stderr().contains("chdir /bin/sh: not a directory"),
                file.describe("a refusal naming the file"));
        j.run("delete", "--force", id).ok();
        assertEquals(List.of(), sb.leftovers());
    }

    /** A foreground exec does not hold the container while it waits: state and kill still work. */
    @Test
    void foregroundExecDoesNotBlockOtherCommands(Sandbox sb) throws Exception {
        Bundle b = sb.bundle().args("sleep", "1000");
        String id = sb.id("fgexec");
        Jrunc j = sb.jrunc();
        j.in(b.dir(), "run", "--detach", id).ok();
        Path pidFile = sb.file("exec.pid");
        Jrunc.Background exec = sb.background(j.start(null, "exec", "--pid-file", pidFile.toString(), id,
                "sleep", "1000"));
        long pid = Long.parseLong(Wait.forFile(pidFile).strip());
        sb.sawPid(pid);
        Result state = j.start(null, "state", id).await(Duration.ofSeconds(45));
        assertEquals("running", Jrunc.JSON.readTree(state.ok().stdout()).get("status").asText());
        assertTrue(exec.process().isAlive());
        assertNotNull(ProcessHandle.of(pid).orElse(null));
        ProcessHandle.of(pid).orElseThrow().destroyForcibly();
        assertEquals(128 + 9, exec.await(Duration.ofSeconds(30)).exitCode(), "exec exits 128+signal");
        j.run("delete", "--force", id).ok();
    }
}
