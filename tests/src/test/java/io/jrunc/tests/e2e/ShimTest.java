package io.jrunc.tests.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

/**
 * containerd 1.6 (Debian's) driving containerd-shim-jrunc-v2 as runtime {@code io.containerd.jrunc.v2}
 * with its default (host) back end: `ctr run --runtime io.containerd.jrunc.v2`, the shim found on the
 * PATH of a private containerd (own config, root, state, sockets; the system containerd is never
 * touched). Output, exit codes, execs with a terminal and stdin, 1 MiB streams, the order of the events
 * `ctr events` shows for many containers, and errors for bad input, each leaving nothing behind: no shim,
 * no socket under /run/containerd/s, no mount, no cgroup.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class ShimTest {
    static final String RUNTIME = "io.containerd.jrunc.v2";
    static final String SHIM = "containerd-shim-jrunc-v2";
    /** How many containers the events test runs in a row (-Djrunc.shim.e2e.containers). */
    static final int CONTAINERS = Integer.getInteger("jrunc.shim.e2e.containers", 200);

    private Path work;
    private Path socket;
    private Path fifoDir;
    private String namespace;
    private Process containerd;
    private Command cmd;
    private CtrClient ctrs;
    private Path shim;
    private final List<String> ids = new ArrayList<>();

    @BeforeAll
    void startContainerd() throws Exception {
        E2eHost.requireRootAndCommands("containerd bsdutils", "containerd", "ctr", "tar", "script");
        shim = E2eHost.jrunc().resolveSibling(SHIM);
        assertTrue(Files.isExecutable(shim), shim + " is missing: run `make build` first");
        work = Files.createTempDirectory("jrunc-e2e-shim-");
        cmd = new Command(work.resolve("out"), Map.of());
        socket = work.resolve("containerd.sock");
        fifoDir = work.resolve("fifo");
        namespace = work.getFileName().toString();
        ctrs = new CtrClient(socket, namespace, fifoDir, work, cmd);
        // containerd finds the shim of runtime io.containerd.jrunc.v2 on its PATH, as after `make install`
        containerd = E2eHost.startContainerd(work, socket, work.resolve("config.toml"), work.resolve("containerd.log"), null,
                containerdEnv());
        assertTrue(E2eHost.eventually(30, () -> containerd.isAlive() && cmd.run(ctr("version")).exitCode() == 0),
                "containerd did not come up: " + Command.read(work.resolve("containerd.log")));
        Path tar = E2eHost.busyboxRootfsTar(work, cmd);
        Path archive = E2eHost.ociArchive(work, tar, cmd);
        Command.Result imported = cmd.run(ctr("image", "import", archive.toString()));
        assertEquals(0, imported.exitCode(), imported.describe());
    }

    @AfterEach
    void removeContainers() {
        E2eHost.removeTasks(cmd, this::ctr, ids);
    }

    @AfterAll
    void stopContainerd() throws Exception {
        if (work == null) {
            return;
        }
        E2eHost.stopPrivateContainerd(containerd, work, namespace, cmd, this::ctr, 20);
    }

    /** containerd's environment beyond this JVM's: the shim found on its PATH. */
    private Map<String, String> containerdEnv() {
        return Map.of("PATH", shim.getParent() + ":" + System.getenv("PATH"));
    }

    /**
     * The host back end's state root of this class's namespace, empty once every task is deleted, goes
     * with the namespace (each run has a namespace of its own; the directories would pile up).
     */
    @AfterAll
    void removeRuntimeRoot() throws IOException {
        if (namespace != null && Files.isDirectory(runtimeRoot())) {
            try (var left = Files.list(runtimeRoot())) {
                assertEquals(List.of(), left.toList(), "runtime state left in " + runtimeRoot());
            }
            Files.delete(runtimeRoot());
        }
    }

    private List<String> ctr(String... args) {
        return ctrs.ctr(args);
    }

    private List<String> ctrRun(String id, List<String> flags, String... command) {
        ids.add(id);
        return ctrs.run(RUNTIME, id, flags, command);
    }

    private List<String> exec(String id, String execId, List<String> flags, String... command) {
        return ctrs.exec(id, execId, flags, command);
    }

    private String taskStatus(String id) {
        return ctrs.taskStatus(id);
    }

    /** The socket of the shim of container {@code id} (no group), by containerd's rule. */
    private Path shimSocket(String id) throws Exception {
        return ctrs.shimSocket(id);
    }

    /** The pid of the shim serving task {@code id}: the process listening on its bundle's address. */
    private long shimPid(String id) throws IOException {
        String address = Files.readString(work.resolve("state/io.containerd.runtime.v2.task").resolve(namespace).resolve(id)
                .resolve("address")).strip();
        long pid = E2eHost.listenerPid(Path.of(address.replaceFirst("^unix://", "")));
        assertTrue(pid > 0, "no shim listens on " + address);
        return pid;
    }

    /** After the container's deletion: no shim (its socket gone), no mount, no cgroup, no container. */
    private void assertNothingLeft(String id) throws Exception {
        Path shimSocket = shimSocket(id);
        assertTrue(E2eHost.eventually(15, () -> !Files.exists(shimSocket)), "shim socket of " + id + " left: " + shimSocket);
        assertTrue(E2eHost.eventually(15, () -> E2eHost.processesMentioning("-id " + id + " ").isEmpty()
                        || E2eHost.processesMentioning(work.toString()).values().stream().noneMatch(c -> c.contains("-id " + id + " "))),
                "shim of " + id + " still running: " + E2eHost.processesMentioning(work.toString()));
        assertEquals(List.of(), E2eHost.cgroupDirs("/" + namespace + "/" + id), "cgroup of " + id + " left behind");
        assertEquals(List.of(), E2eHost.mountsUnder(work.resolve("state")), "mounts left behind");
        assertFalse(cmd.run(ctr("container", "ls", "-q")).out().lines().anyMatch(id::equals), "container " + id + " left");
    }

    /** A client command in the background (its output to files), for a kill from another command. */
    private Process background(List<String> command, String name) throws IOException {
        return ctrs.background(command, name);
    }

    // ---- 1: output and exit codes --------------------------------------------------------------

    @Test
    void runPrintsHiAndTheExitCode() throws Exception {
        Command.Result hi = cmd.run(ctrRun("hi1", List.of("--rm"), "echo", "hi"));
        assertEquals(0, hi.exitCode(), hi.describe());
        assertEquals("hi\n", hi.out(), hi.describe());
        assertNothingLeft("hi1");
        Command.Result seven = cmd.run(ctrRun("seven1", List.of("--rm"), "sh", "-c", "exit 7"));
        assertEquals(7, seven.exitCode(), seven.describe());
        assertNothingLeft("seven1");
    }

    /**
     * SIGKILL to a task gives 137; SIGTERM to a process that does not ignore it gives 143. The task's
     * init is PID 1 of its namespace, which the kernel shields from TERM without a handler, so the TERM
     * case is an exec's process.
     */
    @Test
    void killedProcessesExitWith137And143() throws Exception {
        Process run = background(ctrRun("killed1", List.of("--rm"), "sleep", "1000"), "killed1");
        assertTrue(E2eHost.eventually(60, () -> taskStatus("killed1").equals("RUNNING")), "task did not start");
        Process execed = background(exec("killed1", "term1", List.of(), "sleep", "1000"), "term1");
        assertTrue(E2eHost.eventually(60, () -> cmd.run(ctr("task", "ps", "killed1")).out().lines().count() >= 3),
                "exec did not start: " + cmd.run(ctr("task", "ps", "killed1")).describe());
        Command.Result term = cmd.run(ctr("task", "kill", "--exec-id", "term1", "--signal", "SIGTERM", "killed1"));
        assertEquals(0, term.exitCode(), term.describe());
        assertTrue(execed.waitFor(60, TimeUnit.SECONDS), "exec did not end after TERM");
        assertEquals(143, execed.exitValue(), Command.read(work.resolve("term1.err")));

        Command.Result kill = cmd.run(ctr("task", "kill", "--signal", "SIGKILL", "killed1"));
        assertEquals(0, kill.exitCode(), kill.describe());
        assertTrue(run.waitFor(60, TimeUnit.SECONDS), "ctr run did not end after KILL");
        assertEquals(137, run.exitValue(), Command.read(work.resolve("killed1.err")));
        assertNothingLeft("killed1");
    }

    // ---- 2: exec ---------------------------------------------------------------------------------

    /** A running task with nothing on its streams, for execs. */
    private void runSleeping(String id) {
        Command.Result run = cmd.run(ctrRun(id, List.of("--detach", "--null-io"), "sleep", "1000"));
        assertEquals(0, run.exitCode(), run.describe());
        assertTrue(E2eHost.eventually(60, () -> taskStatus(id).equals("RUNNING")), "task " + id + " did not start");
    }

    private void killAndDelete(String id) throws Exception {
        Command.Result kill = cmd.run(ctr("task", "kill", "--signal", "SIGKILL", id));
        assertEquals(0, kill.exitCode(), kill.describe());
        assertTrue(E2eHost.eventually(60, () -> taskStatus(id).equals("STOPPED")), "task " + id + " did not stop");
        Command.Result delete = cmd.run(ctr("task", "delete", id));
        assertEquals(0, delete.exitCode(), delete.describe());
        assertEquals(0, cmd.run(ctr("container", "delete", id)).exitCode());
        assertNothingLeft(id);
    }

    @Test
    void anExecsOutputAndExitCode() throws Exception {
        runSleeping("exec1");
        Command.Result six = cmd.run(exec("exec1", "e1", List.of(), "sh", "-c", "echo from exec; exit 6"));
        assertEquals(6, six.exitCode(), six.describe());
        assertEquals("from exec\n", six.out(), six.describe());
        killAndDelete("exec1");
    }

    /** ctr copies its stdin into the exec's stdin fifo and closes it at end of file: cat sees the end. */
    @Test
    void anExecsStdinIsPipedThrough() throws Exception {
        runSleeping("stdin1");
        Command.Result cat = cmd.run(exec("stdin1", "e1", List.of(), "sh", "-c", "cat; echo end"), "line one\nline two\n");
        assertEquals(0, cat.exitCode(), cat.describe());
        assertEquals("line one\nline two\nend\n", cat.out(), cat.describe());
        killAndDelete("stdin1");
    }

    /**
     * ctr --tty sizes the pty from its own terminal (script gives it one, of 33 rows and 111 columns)
     * with a ResizePty after Start, so the process looks a moment later.
     */
    @Test
    void anExecWithATerminalSeesItsSize() throws Exception {
        runSleeping("tty1");
        String line = "stty rows 33 cols 111; " + String.join(" ", exec("tty1", "e1", List.of("--tty"),
                "sh", "-c", "'sleep 1; stty size; tty; exit 4'"));
        Command.Result tty = cmd.run(List.of("script", "-qec", line, "/dev/null"));
        assertEquals(4, tty.exitCode(), tty.describe());
        assertTrue(tty.out().contains("33 111\r"), tty.describe().replace("\r", "\\r").replace("\n", "\\n"));
        assertTrue(tty.out().contains("/dev/pts/"), tty.describe());
        killAndDelete("tty1");
    }

    /** What a cleanup does (and this class's after each test): kill --all, delete --force, at once. */
    @Test
    void aRunningTaskKilledAndForceDeletedLeavesNothing() throws Exception {
        runSleeping("force1");
        Command.Result exec = cmd.run(exec("force1", "e1", List.of(), "true"));
        assertEquals(0, exec.exitCode(), exec.describe());
        Command.Result tty = cmd.run(List.of("script", "-qec", String.join(" ", exec("force1", "e2", List.of("--tty"), "true")),
                "/dev/null"));
        assertEquals(0, tty.exitCode(), tty.describe());
        Command.Result kill = cmd.run(ctr("task", "kill", "--all", "--signal", "SIGKILL", "force1"));
        assertEquals(0, kill.exitCode(), kill.describe());
        Command.Result delete = cmd.run(ctr("task", "delete", "--force", "force1"));
        assertEquals(0, delete.exitCode(), delete.describe());
        assertEquals(0, cmd.run(ctr("container", "delete", "force1")).exitCode());
        assertNothingLeft("force1");
    }

    /** The bundle containerd made for task {@code id} (config.json, rootfs, the shim's address file). */
    private Path bundle(String id) {
        return work.resolve("state/io.containerd.runtime.v2.task").resolve(namespace).resolve(id);
    }

    /** The socket of the shim serving task {@code id}: its bundle's address file, as containerd reads it. */
    private Path shimSocketOf(String id) throws IOException {
        return Path.of(Files.readString(bundle(id).resolve("address")).strip().replaceFirst("^unix://", ""));
    }

    /**
     * A shim killed with SIGKILL (the one serving the task, found by its socket): containerd notices and
     * runs the shim's `delete`, and a user's `ctr task ls`, `ctr task delete`, `ctr container rm` find
     * nothing left: no container process, rootfs mount, shim socket, shim process, cgroup or state.
     */
    @Test
    void aKilledShimIsCleanedUpByDelete() throws Exception {
        runSleeping("dead1");
        long init = taskPid("dead1");
        assertEquals(runtimePid("dead1"), init);
        Path stateDir = runtimeRoot().resolve("dead1");
        assertTrue(Files.isDirectory(stateDir), stateDir + " missing");
        List<Path> cgroups = List.copyOf(E2eHost.cgroupsOf(init).values().stream()
                .filter(d -> d.toString().contains("dead1")).toList());
        assertFalse(cgroups.isEmpty(), "no cgroup of dead1: " + E2eHost.cgroupsOf(init));
        Path rootfs = bundle("dead1").resolve("rootfs");
        assertEquals(List.of(rootfs.toString()), E2eHost.mountsUnder(rootfs));
        Path shimSocket = shimSocketOf("dead1");
        long shimPid = E2eHost.listenerOf(shimSocket);
        assertTrue(shimPid > 0, "no process listens on " + shimSocket);

        ProcessHandle.of(shimPid).orElseThrow().destroyForcibly();
        assertTrue(E2eHost.eventually(30, () -> ProcessHandle.of(shimPid).isEmpty()), "shim " + shimPid + " still there");
        assertTrue(E2eHost.eventually(30, () -> !taskStatus("dead1").equals("RUNNING")),
                "task still running: " + cmd.run(ctr("task", "ls")).out());
        cmd.run(ctr("task", "delete", "--force", "dead1"));
        assertTrue(E2eHost.eventually(30, () -> taskStatus("dead1").equals("absent")), "task still listed");
        Command.Result rm = cmd.run(ctr("container", "rm", "dead1"));
        assertEquals(0, rm.exitCode(), rm.describe());

        assertTrue(E2eHost.eventually(15, () -> !Files.exists(Path.of("/proc", Long.toString(init)))),
                () -> "container process " + init + " left: " + Command.read(Path.of("/proc", Long.toString(init), "status")));
        assertEquals(List.of(), E2eHost.mountsUnder(work.resolve("state")), "mounts left");
        assertFalse(Files.exists(shimSocket), "shim socket left: " + shimSocket);
        assertFalse(Files.exists(bundle("dead1")), "bundle left");
        assertEquals(List.of(), cgroups.stream().filter(Files::exists).toList(), "cgroups left");
        assertFalse(Files.exists(stateDir), "host back end state left: " + stateDir);
        assertTrue(ProcessHandle.of(shimPid).isEmpty(), "shim process left");
        Path scratch = runtimeRoot().resolveSibling(".shim-" + shimPid);
        assertTrue(E2eHost.eventually(15, () -> !Files.exists(scratch)), "the dead shim's scratch directory left: " + scratch);
    }

    /**
     * containerd killed and started again (same config, root, state, sockets) while tasks run: it finds
     * their shims through the bundles' address files, lists the tasks running with the same pids, execs
     * and kills reach them, Wait reports their exit status. A task that exits while containerd is down
     * (its init killed from the host) leaves its shim serving, its exit event reaches containerd once it
     * is back, and its status is there. Nothing is left after the deletes.
     */
    @Test
    void runningTasksOutliveARestartOfContainerd() throws Exception {
        runSleeping("restart1");
        runSleeping("restart2");
        runSleeping("restart3");
        Map<String, Long> pids = new LinkedHashMap<>();
        Map<String, Long> shims = new LinkedHashMap<>();
        Map<String, Path> sockets = new LinkedHashMap<>();
        for (String id : List.of("restart1", "restart2", "restart3")) {
            pids.put(id, taskPid(id));
            sockets.put(id, shimSocketOf(id));
            shims.put(id, E2eHost.listenerOf(sockets.get(id)));
            assertTrue(shims.get(id) > 0, "no shim listens for " + id);
        }

        containerd.destroyForcibly();
        assertTrue(containerd.waitFor(30, TimeUnit.SECONDS), "containerd did not end after SIGKILL");
        // an exit while containerd is down: the shim must stay up and serve it later
        ProcessHandle.of(pids.get("restart3")).orElseThrow().destroyForcibly();
        Thread.sleep(3000);
        Path log = work.resolve("containerd.log");
        int logBefore = Command.read(log).length();
        // at trace level containerd logs each event a shim forwards to it ("event forwarded", its topic)
        containerd = E2eHost.restartContainerd(containerd, work.resolve("config.toml"), log, containerdEnv(),
                "--log-level", "trace");
        assertTrue(E2eHost.eventually(30, () -> containerd.isAlive() && cmd.run(ctr("version")).exitCode() == 0),
                "containerd did not come back: " + Command.read(log));
        // restart3's exit, published while containerd was away, reaches the containerd that came back
        assertTrue(E2eHost.eventually(15, () -> Command.read(log).substring(logBefore).lines().anyMatch(l ->
                        l.contains("event forwarded") && l.contains("ns=" + namespace) && l.contains("topic=/tasks/exit"))),
                () -> "no /tasks/exit forwarded after the restart: " + Command.read(log).substring(logBefore));

        for (String id : List.of("restart1", "restart2")) {
            assertEquals("RUNNING", taskStatus(id), cmd.run(ctr("task", "ls")).out());
            assertEquals(pids.get(id), taskPid(id), id + "'s pid");
        }
        assertEquals("STOPPED", taskStatus("restart3"), cmd.run(ctr("task", "ls")).out());
        for (String id : shims.keySet()) {
            assertTrue(ProcessHandle.of(shims.get(id)).isPresent(), "shim of " + id + " gone");
        }
        Command.Result exec = cmd.run(exec("restart1", "after", List.of(), "sh", "-c", "echo after restart; exit 5"));
        assertEquals(5, exec.exitCode(), exec.describe());
        assertEquals("after restart\n", exec.out(), exec.describe());

        assertEquals(0, cmd.run(ctr("task", "kill", "--signal", "SIGKILL", "restart1")).exitCode());
        assertEquals(0, cmd.run(ctr("task", "kill", "--signal", "SIGKILL", "restart2")).exitCode());
        try (ContainerdTasks tasks = new ContainerdTasks(socket, namespace, java.time.Duration.ofSeconds(60))) {
            for (String id : pids.keySet()) {
                assertEquals(137, tasks.await(id, ""), id + "'s exit status");
            }
        }
        for (String id : pids.keySet()) {
            Command.Result delete = cmd.run(ctr("task", "delete", id));
            assertEquals(0, delete.exitCode(), delete.describe());
            assertTrue(delete.err().contains("exit code 137"), delete.describe());
            assertEquals(0, cmd.run(ctr("container", "rm", id)).exitCode());
            ids.remove(id);
        }
        for (String id : pids.keySet()) {
            long pid = pids.get(id);
            assertFalse(Files.exists(Path.of("/proc", Long.toString(pid))), id + "'s process " + pid + " left");
            assertFalse(Files.exists(runtimeRoot().resolve(id)), id + "'s runtime state left");
            assertFalse(Files.exists(bundle(id)), id + "'s bundle left");
            assertNothingLeft(id);
        }
        // a shim ends after its last task, or lingers (a warm shim) still serving its socket: never half-dead
        for (String id : shims.keySet()) {
            long pid = shims.get(id);
            assertTrue(E2eHost.eventually(15, () -> ProcessHandle.of(pid).isEmpty()
                            || E2eHost.listenerOf(sockets.get(id)) == pid),
                    "shim " + pid + " of " + id + " left without serving");
        }
        // containerd back at its usual log level: at trace it passes -debug to the shims it starts next
        containerd = E2eHost.restartContainerd(containerd, work.resolve("config.toml"), log, containerdEnv());
        assertTrue(E2eHost.eventually(30, () -> containerd.isAlive() && cmd.run(ctr("version")).exitCode() == 0),
                "containerd did not come back: " + Command.read(log));
    }

    /** 8: an exec into a stopped task is refused with containerd's failed-precondition error. */
    @Test
    void anExecIntoAStoppedTaskIsRefused() throws Exception {
        Command.Result run = cmd.run(ctrRun("stopped1", List.of("--detach", "--null-io"), "sh", "-c", "exit 3"));
        assertEquals(0, run.exitCode(), run.describe());
        assertTrue(E2eHost.eventually(60, () -> taskStatus("stopped1").equals("STOPPED")), "task did not stop");
        Command.Result stopped = cmd.run(exec("stopped1", "e1", List.of(), "true"));
        assertNotEquals(0, stopped.exitCode(), stopped.describe());
        assertTrue(stopped.err().contains("failed precondition"), stopped.describe());
        Command.Result delete = cmd.run(ctr("task", "delete", "stopped1"));
        assertEquals(0, delete.exitCode(), delete.describe());
        assertTrue(delete.err().contains("exit code 3"), delete.describe());
        assertEquals(0, cmd.run(ctr("container", "delete", "stopped1")).exitCode());
        assertNothingLeft("stopped1");
    }

    // ---- 3: 1 MiB each way -----------------------------------------------------------------------

    @Test
    void aMebibyteOfStdoutAndStderrComesThroughIntact() throws Exception {
        Command.Result r = cmd.run(ctrRun("mib1", List.of("--rm"), "sh", "-c",
                "yes 0123456789abcdef | head -c 1048576; yes fedcba9876543210 | head -c 1048576 >&2"));
        assertEquals(0, r.exitCode(), r.err().length() > 200 ? r.err().substring(0, 200) : r.err());
        assertEquals(repeat("0123456789abcdef\n", 1048576), r.out(), "stdout differs");
        assertEquals(repeat("fedcba9876543210\n", 1048576), r.err(), "stderr differs");
        assertNothingLeft("mib1");
    }

    private static String repeat(String line, int bytes) {
        return line.repeat(bytes / line.length() + 1).substring(0, bytes);
    }

    // ---- 4: events in order ----------------------------------------------------------------------

    private static final Pattern EVENT = Pattern.compile("(/tasks/[a-z-]+) (\\{.*\\})\\s*$");
    private static final Pattern CONTAINER = Pattern.compile("\"container_id\":\"([^\"]+)\"");
    private static final Pattern EXEC_ID = Pattern.compile("\"(?:exec_id|id)\":\"([^\"]+)\"");

    @Test
    void eventsOfManyContainersAndExecsAreInContainerdsOrder() throws Exception {
        Path eventsLog = work.resolve("events.out");
        Process events = new ProcessBuilder(ctr("events")).redirectOutput(eventsLog.toFile())
                .redirectErrorStream(true).redirectInput(Path.of("/dev/null").toFile()).start();
        try {
            Thread.sleep(500);
            for (int i = 0; i < CONTAINERS; i++) {
                String id = "ev" + i;
                Command.Result r = cmd.run(ctrRun(id, List.of("--rm", "--null-io"), "true"));
                assertEquals(0, r.exitCode(), r.describe());
                ids.remove(id);
            }
            Command.Result run = cmd.run(ctrRun("evexec", List.of("--detach", "--null-io"), "sleep", "1000"));
            assertEquals(0, run.exitCode(), run.describe());
            for (int i = 0; i < 5; i++) {
                Command.Result e = cmd.run(exec("evexec", "x" + i, List.of(), "sh", "-c", "exit " + i));
                assertEquals(i, e.exitCode(), e.describe());
            }
            cmd.run(ctr("task", "kill", "--signal", "SIGKILL", "evexec"));
            assertTrue(E2eHost.eventually(60, () -> taskStatus("evexec").equals("STOPPED")), "task did not stop");
            assertEquals(0, cmd.run(ctr("task", "delete", "evexec")).exitCode());
            assertTrue(E2eHost.eventually(10, () -> Command.read(eventsLog).contains("/tasks/delete {\"container_id\":\"evexec\"")),
                    "no delete event for evexec");
        } finally {
            events.destroy();
            events.waitFor(10, TimeUnit.SECONDS);
        }
        Map<String, List<String>> byProcess = new LinkedHashMap<>();
        for (String line : Command.read(eventsLog).split("\n")) {
            if (!line.contains(" " + namespace + " ")) {
                continue;
            }
            Matcher m = EVENT.matcher(line);
            if (!m.find()) {
                continue;
            }
            String topic = m.group(1);
            Matcher c = CONTAINER.matcher(m.group(2));
            if (!c.find()) {
                continue;
            }
            String container = c.group(1);
            Matcher x = EXEC_ID.matcher(m.group(2));
            String execId = x.find() ? x.group(1) : container;
            // the init's events are its container's; an exec's are container/exec
            String key = topic.equals("/tasks/create") || topic.equals("/tasks/start") || topic.equals("/tasks/delete")
                    || execId.equals(container) ? container : container + "/" + execId;
            byProcess.computeIfAbsent(key, k -> new ArrayList<>()).add(topic);
        }
        List<String> taskOrder = List.of("/tasks/create", "/tasks/start", "/tasks/exit", "/tasks/delete");
        for (int i = 0; i < CONTAINERS; i++) {
            assertEquals(taskOrder, byProcess.get("ev" + i), "events of ev" + i);
        }
        assertEquals(taskOrder, byProcess.get("evexec"), "events of evexec");
        for (int i = 0; i < 5; i++) {
            assertEquals(List.of("/tasks/exec-added", "/tasks/exec-started", "/tasks/exit"), byProcess.get("evexec/x" + i),
                    "events of exec x" + i);
        }
        ids.remove("evexec");
        cmd.run(ctr("container", "delete", "evexec"));
        assertNothingLeft("evexec");
        assertNothingLeft("ev" + (CONTAINERS - 1));
    }

    // ---- 5: pause/resume, update, metrics, OOM through containerd ----------------------------------

    /** The task's init pid as ctr lists it (-1 when not listed). */
    private long taskPid(String id) {
        for (String line : cmd.run(ctr("task", "ls")).out().split("\n")) {
            String[] f = line.trim().split("\\s+");
            if (f.length >= 3 && f[0].equals(id)) {
                return Long.parseLong(f[1]);
            }
        }
        return -1;
    }

    /** The host back end's runtime state root of this namespace (no [host] root in the runtime's options). */
    private Path runtimeRoot() {
        return Path.of("/run/containerd/jrunc", namespace);
    }

    /** The container's init pid from the runtime's own state (`jrunc --root ROOT state ID`). */
    private long runtimePid(String id) {
        Command.Result state = cmd.run(List.of(E2eHost.jrunc().toString(), "--root", runtimeRoot().toString(), "state", id));
        assertEquals(0, state.exitCode(), state.describe());
        Matcher m = Pattern.compile("\"pid\"\\s*:\\s*(\\d+)").matcher(state.out());
        assertTrue(m.find(), state.describe());
        return Long.parseLong(m.group(1));
    }

    /**
     * The task's cgroup directory in the hierarchy of {@code v1Controller} (the v2 tree on a unified
     * host), found from the pid in the runtime's state and that process's /proc/PID/cgroup.
     */
    private Path taskCgroup(String id, String v1Controller) {
        Map<String, Path> dirs = E2eHost.cgroupsOf(runtimePid(id));
        Path dir = dirs.containsKey(v1Controller) ? dirs.get(v1Controller) : dirs.get("");
        assertTrue(dir != null && Files.isDirectory(dir), "cgroup of " + id + ": " + dirs);
        return dir;
    }

    private static boolean unified(Path cgroupDir) {
        return Files.exists(cgroupDir.resolve("cgroup.controllers"));
    }

    /** Frozen or not, as the kernel shows it: v1 freezer.state, v2 cgroup.events' "frozen". */
    private static String freezerState(Path dir) {
        if (unified(dir)) {
            return Command.read(dir.resolve("cgroup.events")).contains("frozen 1") ? "FROZEN" : "THAWED";
        }
        return Command.read(dir.resolve("freezer.state")).strip();
    }

    private static long memoryLimit(Path dir) {
        String v = Command.read(dir.resolve(unified(dir) ? "memory.max" : "memory.limit_in_bytes")).strip();
        return v.equals("max") ? Long.MAX_VALUE : Long.parseLong(v);
    }

    /** `ctr events` in the background, to {@code log}. */
    private Process events(Path log) throws Exception {
        Process events = new ProcessBuilder(ctr("events")).redirectOutput(log.toFile())
                .redirectErrorStream(true).redirectInput(Path.of("/dev/null").toFile()).start();
        Thread.sleep(500); // subscribed before the first event of the test
        return events;
    }

    /** The topics `ctr events` showed for container {@code id} of this namespace, in order. */
    private List<String> topicsOf(Path log, String id) {
        List<String> topics = new ArrayList<>();
        for (String line : Command.read(log).split("\n")) {
            Matcher m = EVENT.matcher(line);
            if (line.contains(" " + namespace + " ") && m.find() && m.group(2).contains("\"container_id\":\"" + id + "\"")) {
                topics.add(m.group(1));
            }
        }
        return topics;
    }

    /** The METRIC/VALUE lines of `ctr task metrics` (its table). */
    private Map<String, String> metrics(String id) {
        Command.Result r = cmd.run(ctr("task", "metrics", id));
        assertEquals(0, r.exitCode(), r.describe());
        Map<String, String> values = new LinkedHashMap<>();
        for (String line : r.out().split("\n")) {
            String[] f = line.trim().split("\\s+", 2);
            if (f.length == 2) {
                values.put(f[0], f[1].strip());
            }
        }
        return values;
    }

    @Test
    void pauseAndResumeFreezeTheTasksCgroupAndAreEvents() throws Exception {
        Path log = work.resolve("pause-events.out");
        Process events = events(log);
        try {
            runSleeping("pause1");
            Path cgroup = taskCgroup("pause1", "freezer");
            assertEquals("THAWED", freezerState(cgroup));
            Command.Result pause = cmd.run(ctr("task", "pause", "pause1"));
            assertEquals(0, pause.exitCode(), pause.describe());
            assertEquals("PAUSED", taskStatus("pause1"));
            assertEquals("FROZEN", freezerState(cgroup));
            Command.Result resume = cmd.run(ctr("task", "resume", "pause1"));
            assertEquals(0, resume.exitCode(), resume.describe());
            assertEquals("RUNNING", taskStatus("pause1"));
            assertEquals("THAWED", freezerState(cgroup));
            Command.Result exec = cmd.run(exec("pause1", "e1", List.of(), "echo", "thawed"));
            assertEquals(0, exec.exitCode(), exec.describe());
            assertEquals("thawed\n", exec.out());
            assertTrue(E2eHost.eventually(10, () -> topicsOf(log, "pause1").contains("/tasks/resumed")), Command.read(log));
            List<String> topics = topicsOf(log, "pause1");
            assertEquals(List.of("/tasks/create", "/tasks/start", "/tasks/paused", "/tasks/resumed"), topics.subList(0, 4), topics.toString());
        } finally {
            events.destroy();
            events.waitFor(10, TimeUnit.SECONDS);
        }
        killAndDelete("pause1");
    }

    /**
     * Update through containerd's task service (ctr 1.6 has no command for it), read back from the
     * task's cgroup, and `ctr task metrics` of a running task: its usage below its limits, one process.
     */
    @Test
    void anUpdatedMemoryLimitIsReadBackAndMetricsAreSane() throws Exception {
        runSleeping("update1");
        Path memory = taskCgroup("update1", "memory");
        long limit = 48L << 20;
        try (ContainerdTasks tasks = new ContainerdTasks(socket, namespace, java.time.Duration.ofSeconds(30))) {
            tasks.update("update1", "{\"memory\":{\"limit\":" + limit + "}}");
        }
        assertEquals(limit, memoryLimit(memory), "memory limit in " + memory);

        Map<String, String> m = metrics("update1");
        boolean v1 = m.containsKey("memory.usage_in_bytes");
        long usage = Long.parseLong(m.getOrDefault(v1 ? "memory.usage_in_bytes" : "memory.usage", "-1"));
        long shownLimit = Long.parseLong(m.getOrDefault(v1 ? "memory.limit_in_bytes" : "memory.usage_limit", "-1"));
        assertTrue(usage > 0 && usage < limit, "memory usage " + usage + ": " + m);
        assertEquals(limit, shownLimit, m.toString());
        assertEquals("1", m.get("pids.current"), m.toString());
        String cpu = m.getOrDefault(v1 ? "cpuacct.usage" : "cpu.usage_usec", "-1");
        assertTrue(Long.parseLong(cpu) > 0, "cpu usage: " + m);
        killAndDelete("update1");
    }

    /** A task over its 16 MiB limit is killed (137); containerd hears /tasks/oom, before its exit. */
    @Test
    void aTaskOverItsMemoryLimitIsKilledAndItsOomIsAnEventBeforeItsExit() throws Exception {
        Path log = work.resolve("oom-events.out");
        Process events = events(log);
        try {
            Command.Result r = cmd.run(ctrRun("oom1", List.of("--rm", "--null-io", "--memory-limit", Long.toString(16L << 20)),
                    "tail", "/dev/zero"));
            assertEquals(137, r.exitCode(), r.describe());
            assertTrue(E2eHost.eventually(10, () -> topicsOf(log, "oom1").contains("/tasks/delete")), Command.read(log));
        } finally {
            events.destroy();
            events.waitFor(10, TimeUnit.SECONDS);
        }
        assertEquals(List.of("/tasks/create", "/tasks/start", "/tasks/oom", "/tasks/exit", "/tasks/delete"),
                topicsOf(log, "oom1"));
        assertNothingLeft("oom1");
    }

    // ---- 8: bad input ----------------------------------------------------------------------------

    @Test
    void anUnknownRuntimeOptionIsNamedAndNothingIsLeft() throws Exception {
        Path config = work.resolve("bad-options.toml");
        Files.writeString(config, "backend = \"host\"\ncolour = \"red\"\n");
        Command.Result r = cmd.run(ctrRun("badopt1", List.of("--rm", "--runtime-config-path", config.toString()), "true"));
        assertNotEquals(0, r.exitCode(), r.describe());
        assertTrue(r.err().contains("runtime options: " + config + " line 2: unknown option colour"), r.describe());
        assertNothingLeft("badopt1");
    }

    @Test
    void aBundleWithoutConfigJsonIsRefusedByStart() throws Exception {
        Path bundle = Files.createDirectories(work.resolve("empty-bundle"));
        Command.Result r = cmd.run(List.of("sh", "-c", "cd " + bundle + " && exec " + shim + " -namespace " + namespace
                + " -address " + socket + " -publish-binary /usr/bin/containerd -id nobundle1 start"));
        assertEquals(1, r.exitCode(), r.describe());
        assertEquals("", r.out(), r.describe());
        assertEquals(SHIM + ": bundle " + bundle + " has no config.json\n", r.err(), r.describe());
        assertFalse(Files.exists(shimSocket("nobundle1")));
    }

    @Test
    void aSecondContainerWithTheSameIdIsRefused() throws Exception {
        Command.Result first = cmd.run(ctrRun("dup1", List.of("--detach", "--null-io"), "sleep", "1000"));
        assertEquals(0, first.exitCode(), first.describe());
        Command.Result second = cmd.run(ctrRun("dup1", List.of("--detach", "--null-io"), "sleep", "1000"));
        assertNotEquals(0, second.exitCode(), second.describe());
        assertTrue(second.err().contains("already exists"), second.describe());
        assertEquals("RUNNING", taskStatus("dup1"));
        cmd.run(ctr("task", "kill", "--signal", "SIGKILL", "dup1"));
        assertTrue(E2eHost.eventually(60, () -> taskStatus("dup1").equals("STOPPED")), "task did not stop");
        assertEquals(0, cmd.run(ctr("task", "delete", "dup1")).exitCode());
        assertEquals(0, cmd.run(ctr("container", "delete", "dup1")).exitCode());
        assertNothingLeft("dup1");
    }

    // ---- the shared host shim ----------------------------------------------------------------------

    /**
     * The host back end's default: every task of a containerd and namespace in one warm shim, which
     * stays after its last task, so a later `ctr run` (a container of its own) finds it.
     */
    @Test
    void consecutiveContainersAreServedByOneSharedShim() throws Exception {
        runSleeping("share1");
        long first = shimPid("share1");
        assertTrue(E2eHost.processesMentioning(work.toString()).get(first).contains(E2eHost.SHARED_SHIM_MARKER),
                E2eHost.processesMentioning(work.toString()).toString());
        Command.Result hi = cmd.run(ctrRun("share2", List.of("--rm"), "echo", "hi"));
        assertEquals("hi\n", hi.out(), hi.describe());
        runSleeping("share3");
        assertEquals(first, shimPid("share3"), "a second shim for share3");
        removeTask("share1");
        killAndDelete("share3");
        // no task left: the shim lingers, and the next container is its again
        assertTrue(ProcessHandle.of(first).map(ProcessHandle::isAlive).orElse(false), "the shared shim ended with its last task");
        runSleeping("share4");
        assertEquals(first, shimPid("share4"), "the lingering shim was not reused");
        killAndDelete("share4");
    }

    /**
     * A shared shim ends its linger (here 2 s, in a namespace of its own so no other test's shim is
     * reused) after its last task, removing its socket and pid file; a container with {@code shim =
     * "pod"} gets a shim of its own that ends with it, as under containerd's runc shim.
     */
    @Test
    void aSharedShimEndsAfterItsLingerAndPodGroupingGivesAShimPerContainer() throws Exception {
        String other = namespace + "-linger";
        Function<String[], List<String>> otherCtr = a -> Command.list(List.of("ctr", "--address", socket.toString(),
                "--namespace", other), a);
        Path archive = work.resolve("busybox-oci.tar");
        assertEquals(0, cmd.run(otherCtr.apply(new String[] {"image", "import", archive.toString()})).exitCode());
        try {
            Path linger = work.resolve("linger.toml");
            Files.writeString(linger, "[host]\nlinger = 2\n");
            Command.Result run = cmd.run(otherCtr.apply(new String[] {"run", "--runtime", RUNTIME, "--runtime-config-path",
                    linger.toString(), "--rm", "--fifo-dir", fifoDir.toString(), E2eHost.IMAGE, "linger1", "echo", "hi"}));
            assertEquals("hi\n", run.out(), run.describe());
            Path shimSocket = sharedSocket(other);
            assertTrue(Files.exists(shimSocket), "no shared shim socket " + shimSocket);
            long pid = E2eHost.listenerPid(shimSocket);
            assertTrue(pid > 0);
            assertTrue(E2eHost.eventually(20, () -> ProcessHandle.of(pid).isEmpty()), "the shared shim did not end after 2 s idle");
            assertFalse(Files.exists(shimSocket), "socket left");
            for (String file : List.of(".pid", ".log")) {
                Path f = Path.of("/run/containerd/jrunc", "shim-" + shimSocket.getFileName().toString().substring(0, 16) + file);
                assertFalse(Files.exists(f), f + " left");
            }
        } finally {
            cmd.run(otherCtr.apply(new String[] {"image", "remove", E2eHost.IMAGE}));
            cmd.run(otherCtr.apply(new String[] {"namespace", "remove", other}));
            E2eHost.removeCgroupTree("/" + other);
        }
        Path pod = work.resolve("pod.toml");
        Files.writeString(pod, "[host]\nshim = \"pod\"\n");
        for (String id : List.of("own1", "own2")) {
            Command.Result run = cmd.run(ctrRun(id, List.of("--detach", "--null-io", "--runtime-config-path", pod.toString()),
                    "sleep", "1000"));
            assertEquals(0, run.exitCode(), run.describe());
            assertTrue(E2eHost.eventually(60, () -> taskStatus(id).equals("RUNNING")), "task " + id + " did not start");
        }
        long own1 = shimPid("own1");
        assertNotEquals(own1, shimPid("own2"));
        assertTrue(E2eHost.processesMentioning("-id own1 ").containsKey(own1));
        removeTask("own1");
        assertTrue(E2eHost.eventually(15, () -> ProcessHandle.of(own1).isEmpty()), "own1's shim outlived its task");
        killAndDelete("own2");
    }

    /** Kills and deletes a task and its container while others run (their mounts stay). */
    private void removeTask(String id) {
        assertEquals(0, cmd.run(ctr("task", "kill", "--signal", "SIGKILL", id)).exitCode());
        assertTrue(E2eHost.eventually(60, () -> taskStatus(id).equals("STOPPED")), "task " + id + " did not stop");
        assertEquals(0, cmd.run(ctr("task", "delete", id)).exitCode());
        assertEquals(0, cmd.run(ctr("container", "delete", id)).exitCode());
        ids.remove(id);
    }

    /** The shared shim's socket of namespace {@code ns}, by containerd's rule with the shared group. */
    private Path sharedSocket(String ns) throws Exception {
        String joined = socket + "/" + ns + "/" + E2eHost.SHARED_SHIM_MARKER;
        return Path.of("/run/containerd/s", HexFormat.of().formatHex(
                MessageDigest.getInstance("SHA-256").digest(joined.getBytes(StandardCharsets.UTF_8))));
    }

    /**
     * The `delete` containerd runs after every task (its connection closed) when nothing of the task is
     * left: the launcher answers without a JVM, and its hand-encoded DeleteResponse must read as
     * containerd reads it (the init's pid, 137, now).
     */
    @Test
    void theLaunchersDeleteAnswerIsAProtobufDeleteResponse() throws Exception {
        Path bundle = Files.createDirectories(work.resolve("gone-bundle"));
        Files.writeString(bundle.resolve("init.pid"), "4242");
        Files.write(bundle.resolve("shim-options.pb"), new byte[0]);
        Path out = work.resolve("delete.out");
        long before = java.time.Instant.now().getEpochSecond();
        Process p = new ProcessBuilder(shim.toString(), "-namespace", namespace, "-address", socket.toString(),
                "-publish-binary", "/usr/bin/containerd", "-id", "gone1", "-bundle", bundle.toString(), "delete")
                .redirectOutput(out.toFile()).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue());
        var response = io.jrunc.containerd.api.task.v2.DeleteResponse.parseFrom(Files.readAllBytes(out));
        assertEquals(4242, response.getPid());
        assertEquals(137, response.getExitStatus());
        long seconds = response.getExitedAt().getSeconds();
        assertTrue(seconds >= before && seconds <= java.time.Instant.now().getEpochSecond(), response.toString());
    }

    /** The shim's class path holds what it runs, not the tests' JUnit (a test-scoped dependency). */
    @Test
    void theShimsClassPathHasNoTestJars() throws IOException {
        String launcher = Files.readString(shim);
        String cp = launcher.lines().filter(l -> l.startsWith("cp=")).findFirst().orElseThrow();
        for (String jar : cp.substring(3).split(":")) {
            String name = Path.of(jar).getFileName().toString();
            assertFalse(name.matches("(junit|opentest4j|apiguardian).*"), "test jar in the shim's class path: " + jar);
        }
    }
}
