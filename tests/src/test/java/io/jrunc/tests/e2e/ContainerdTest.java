package io.jrunc.tests.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrunc.testsupport.Requirements;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

/**
 * containerd 1.6 (Debian's) driving jrunc through containerd-shim-runc-v2, as `ctr run --runc-binary`
 * does: the shim calls `jrunc --root <runc-root>/<namespace> --log <bundle>/log.json --log-format json`
 * with create/start/exec/ps/kill/delete, reads the pid files, and reaps the container's processes as
 * their subreaper. A private containerd (own config, root, state, socket and opt dir, no CRI) runs for
 * this class and is stopped by its pid.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class ContainerdTest {
    private Path work;
    private Path socket;
    private Path runcRoot;
    private Path fifoDir;
    private String namespace;
    private Process containerd;
    private Command cmd;
    private Path jrunc;
    private final List<String> ids = new ArrayList<>();

    @BeforeAll
    void startContainerd() throws Exception {
        E2eHost.requireRootAndCommands("containerd", "containerd", "ctr", "containerd-shim-runc-v2", "tar");
        jrunc = E2eHost.jrunc();
        work = Files.createTempDirectory("jrunc-e2e-ctd-");
        cmd = new Command(work.resolve("out"), Map.of());
        socket = work.resolve("containerd.sock");
        runcRoot = work.resolve("runc");
        fifoDir = work.resolve("fifo");
        // Also the cgroup parent of the containers: ctr's default cgroupsPath is /<namespace>/<id>.
        namespace = work.getFileName().toString();
        containerd = E2eHost.startContainerd(work, socket, work.resolve("config.toml"), work.resolve("containerd.log"));
        assertTrue(E2eHost.eventually(30, () -> containerd.isAlive()
                        && cmd.run(ctr("version")).exitCode() == 0),
                "containerd did not come up: " + Command.read(work.resolve("containerd.log")));

        Path tar = E2eHost.busyboxRootfsTar(work, cmd);
        Path archive = E2eHost.ociArchive(work, tar, cmd);
        Command.Result imported = cmd.run(ctr("image", "import", archive.toString()));
        assertEquals(0, imported.exitCode(), imported.describe());
        Command.Result images = cmd.run(ctr("image", "ls", "-q"));
        assertTrue(images.out().contains(E2eHost.IMAGE), images.describe());
    }

    /** Whatever a test left (it failed half-way): its tasks killed and deleted, its containers deleted. */
    @AfterEach
    void removeContainers() {
        E2eHost.removeTasks(cmd, this::ctr, ids);
    }

    @AfterAll
    void stopContainerd() throws Exception {
        if (work == null) {
            return;
        }
        E2eHost.stopPrivateContainerd(containerd, work, namespace, cmd, this::ctr, 0);
    }

    private List<String> ctr(String... args) {
        return Command.list(List.of("ctr", "--address", socket.toString(), "--namespace", namespace), args);
    }

    /** `ctr run` with jrunc as the runc binary and a private runc root; {@code flags} go before the image. */
    private List<String> ctrRun(String id, List<String> flags, String... command) {
        ids.add(id);
        List<String> c = ctr("run", "--runc-binary", jrunc.toString(), "--runc-root", runcRoot.toString(),
                "--fifo-dir", fifoDir.toString());
        c.addAll(flags);
        c.add(E2eHost.IMAGE);
        c.add(id);
        c.addAll(List.of(command));
        return c;
    }

    private String taskStatus(String id) {
        Command.Result r = cmd.run(ctr("task", "ls"));
        for (String line : r.out().split("\n")) {
            String[] f = line.trim().split("\\s+");
            if (f.length >= 3 && f[0].equals(id)) {
                return f[2];
            }
        }
        return "absent";
    }

    /** After task and container deletion jrunc's state, the cgroup and the rootfs mount are gone. */
    private void assertNothingLeft(String id) {
        assertFalse(Files.exists(runcRoot.resolve(namespace).resolve(id)), "jrunc state of " + id + " left behind");
        assertEquals(List.of(), E2eHost.cgroupDirs("/" + namespace + "/" + id), "cgroup of " + id + " left behind");
        assertEquals(List.of(), E2eHost.mountsUnder(work.resolve("state")), "mounts left behind");
        Command.Result containers = cmd.run(ctr("container", "ls", "-q"));
        assertFalse(containers.out().contains(id), containers.describe());
    }

    @Test
    void runPrintsTheContainersOutputAndExitsWithItsStatus() {
        Command.Result r = cmd.run(ctrRun("run1", List.of("--rm"),
                "sh", "-c", "echo hello from jrunc; echo pid=$$; exit 5"));
        assertEquals(5, r.exitCode(), r.describe());
        assertEquals("hello from jrunc\npid=1\n", r.out(), r.describe());
        assertNothingLeft("run1");
    }

    @Test
    void detachedTaskTakesExecsPausesAndStopsOnSigterm() {
        Path log = work.resolve("detached1.log");
        Command.Result run = cmd.run(ctrRun("detached1", List.of("--detach", "--log-uri", "file://" + log),
                "sh", "-c", "echo started; trap 'echo got TERM; exit 9' TERM; while true; do sleep 0.2; done"));
        assertEquals(0, run.exitCode(), run.describe());
        assertTrue(E2eHost.eventually(30, () -> Command.read(log).contains("started")), "container log: " + Command.read(log));
        assertEquals("RUNNING", taskStatus("detached1"));

        Command.Result exec = cmd.run(ctr("task", "exec", "--exec-id", "e1", "--fifo-dir", fifoDir.toString(),
                "detached1", "sh", "-c", "echo from exec; echo ppid=$PPID; exit 6"));
        assertEquals(6, exec.exitCode(), exec.describe());
        assertEquals("from exec\nppid=0\n", exec.out(), exec.describe());

        Command.Result missing = cmd.run(ctr("task", "exec", "--exec-id", "e2", "--fifo-dir", fifoDir.toString(),
                "detached1", "/nonexistent"));
        assertEquals(1, missing.exitCode(), missing.describe());
        assertTrue(missing.err().contains("OCI runtime exec failed: jrunc exec failed: unable to start container "
                + "process: exec: \"/nonexistent\": stat /nonexistent: no such file or directory"), missing.describe());

        // pause/resume: the shim calls `jrunc pause`/`resume`, and `state` must then say paused.
        Command.Result pause = cmd.run(ctr("task", "pause", "detached1"));
        assertEquals(0, pause.exitCode(), pause.describe());
        assertEquals("PAUSED", taskStatus("detached1"));
        Command.Result resume = cmd.run(ctr("task", "resume", "detached1"));
        assertEquals(0, resume.exitCode(), resume.describe());
        assertEquals("RUNNING", taskStatus("detached1"));

        Command.Result ps = cmd.run(ctr("task", "ps", "detached1"));
        assertEquals(0, ps.exitCode(), ps.describe());
        assertTrue(ps.out().lines().skip(1).count() >= 1, ps.describe());

        Command.Result kill = cmd.run(ctr("task", "kill", "detached1")); // SIGTERM
        assertEquals(0, kill.exitCode(), kill.describe());
        assertTrue(E2eHost.eventually(30, () -> taskStatus("detached1").equals("STOPPED")), "task did not stop");
        assertTrue(Command.read(log).contains("got TERM"), "container log: " + Command.read(log));

        Command.Result delete = cmd.run(ctr("task", "delete", "detached1"));
        assertEquals(0, delete.exitCode(), delete.describe());
        assertTrue(delete.err().contains("exit code 9"), delete.describe());
        Command.Result rm = cmd.run(ctr("container", "delete", "detached1"));
        assertEquals(0, rm.exitCode(), rm.describe());
        assertNothingLeft("detached1");
    }

    @Test
    void killAllSigkillsEveryProcessOfTheTask() {
        Command.Result run = cmd.run(ctrRun("killall1", List.of("--detach", "--null-io"),
                "sh", "-c", "sleep 1000 & sleep 1000 & wait"));
        assertEquals(0, run.exitCode(), run.describe());
        assertTrue(E2eHost.eventually(30, () -> cmd.run(ctr("task", "ps", "killall1")).out().lines().count() == 4),
                "expected sh and two sleeps: " + cmd.run(ctr("task", "ps", "killall1")).describe());

        Command.Result kill = cmd.run(ctr("task", "kill", "--all", "--signal", "SIGKILL", "killall1"));
        assertEquals(0, kill.exitCode(), kill.describe());
        assertTrue(E2eHost.eventually(30, () -> taskStatus("killall1").equals("STOPPED")), "task did not stop");
        Command.Result delete = cmd.run(ctr("task", "delete", "killall1"));
        assertEquals(0, delete.exitCode(), delete.describe());
        assertTrue(delete.err().contains("exit code 137"), delete.describe());
        cmd.run(ctr("container", "delete", "killall1"));
        assertNothingLeft("killall1");
    }

    /** --tty: the shim passes --console-socket and reads the pty master jrunc sends over it. */
    @Test
    void ttyRunGetsAPseudoTerminal() {
        Requirements.requireCommands("bsdutils", "script"); // gives ctr the terminal --tty needs
        // ctr --tty puts its own stdin in raw mode, so it needs a terminal: script provides one.
        String line = String.join(" ", ctrRun("tty1", List.of("--rm", "--tty"),
                "sh", "-c", "'tty; echo tty ok; exit 2'"));
        Command.Result r = cmd.run(List.of("script", "-qec", line, "/dev/null"));
        assertEquals(2, r.exitCode(), r.describe());
        assertTrue(r.out().contains("/dev/pts/0\r"), r.describe());
        assertTrue(r.out().contains("tty ok\r"), r.describe());
        assertNothingLeft("tty1");
    }

    /**
     * `ctr run --seccomp`: containerd 1.6's default profile (contrib/seccomp), made for ctr's default
     * capabilities, which lack CAP_SYS_ADMIN, so it leaves unshare(2) out (default action: EPERM). The
     * kernel itself lets root without CAP_SYS_ADMIN unshare a user namespace, as the same command
     * without --seccomp shows first: the EPERM under --seccomp is the filter's. The task and an exec
     * into it each run under one filter.
     */
    @Test
    void seccompDefaultProfileFiltersTheTaskAndItsExecs() {
        String probe = "grep -E '^Seccomp' /proc/self/status; unshare -U true 2>&1; echo unshare=$?";
        Command.Result plain = cmd.run(ctrRun("noseccomp1", List.of("--rm"), "sh", "-c", probe));
        assertEquals(0, plain.exitCode(), plain.describe());
        assertEquals("Seccomp:\t0\nSeccomp_filters:\t0\nunshare=0\n", plain.out(), plain.describe());
        assertNothingLeft("noseccomp1");

        String filtered = "Seccomp:\t2\nSeccomp_filters:\t1\nunshare: unshare(0x10000000): Operation not permitted\n"
                + "unshare=1\n";
        Path log = work.resolve("seccomp1.log");
        Command.Result run = cmd.run(ctrRun("seccomp1", List.of("--seccomp", "--detach", "--log-uri", "file://" + log),
                "sh", "-c", probe + "; echo started; while true; do sleep 0.2; done"));
        assertEquals(0, run.exitCode(), run.describe());
        assertTrue(E2eHost.eventually(30, () -> Command.read(log).contains("started")), "container log: " + Command.read(log));
        assertEquals(filtered + "started\n", Command.read(log));
        assertEquals("RUNNING", taskStatus("seccomp1"));

        Command.Result exec = cmd.run(ctr("task", "exec", "--exec-id", "e1", "--fifo-dir", fifoDir.toString(),
                "seccomp1", "sh", "-c", probe));
        assertEquals(0, exec.exitCode(), exec.describe());
        assertEquals(filtered, exec.out(), exec.describe());

        Command.Result kill = cmd.run(ctr("task", "kill", "--signal", "SIGKILL", "seccomp1"));
        assertEquals(0, kill.exitCode(), kill.describe());
        assertTrue(E2eHost.eventually(30, () -> taskStatus("seccomp1").equals("STOPPED")), "task did not stop");
        Command.Result delete = cmd.run(ctr("task", "delete", "seccomp1"));
        assertEquals(0, delete.exitCode(), delete.describe());
        Command.Result rm = cmd.run(ctr("container", "delete", "seccomp1"));
        assertEquals(0, rm.exitCode(), rm.describe());
        assertNothingLeft("seccomp1");
    }

    @Test
    void createFailureIsReportedFromTheJsonLog() {
        Command.Result r = cmd.run(ctrRun("missing1", List.of("--rm"), "/nonexistent"));
        assertEquals(1, r.exitCode(), r.describe());
        assertTrue(r.err().contains("OCI runtime create failed: jrunc create failed: unable to start container "
                + "process: exec: \"/nonexistent\": stat /nonexistent: no such file or directory"), r.describe());
        assertNothingLeft("missing1");
    }

}
