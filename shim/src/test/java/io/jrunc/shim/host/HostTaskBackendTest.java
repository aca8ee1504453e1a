package io.jrunc.shim.host;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrunc.shim.ProcessExit;
import io.jrunc.shim.TaskRequests;
import io.jrunc.shim.TaskStats;
import io.jrunc.shim.TaskStatus;
import io.jrunc.testsupport.Requirements;
import io.jrunc.ttrpc.Code;
import io.jrunc.ttrpc.RpcException;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The host back end driven directly, as the task service drives it, with real busybox containers
 * (root): exits, signals, stdio through fifos, exec, terminals, pause, update, stats, OOM, many
 * containers in a row, and creates that fail leaving nothing.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class HostTaskBackendTest {
    private static final String NS = "shimtest";
    private static final Path CGROUP_V1 = Path.of("/sys/fs/cgroup");
    private static Path base;
    private static Path bundles;
    private static RecordedEvents events;
    private static HostTaskBackend backend;

    @BeforeAll
    static void setUp() throws IOException {
        Requirements.requireRoot("the host back end creates containers");
        Requirements.require(Files.isExecutable(Path.of("/bin/busybox")), "busybox-static (/bin/busybox)");
        base = Files.createTempDirectory(Path.of("/run"), "jrunc-shim-host-");
        bundles = Files.createTempDirectory("jrunc-shim-bundles-");
        events = new RecordedEvents();
        backend = new HostTaskBackend(events, base);
    }

    @AfterAll
    static void tearDown() throws IOException {
        try {
            if (backend != null) {
                assertTrue(backend.empty(), "every test deletes its tasks");
                backend.close();
            }
        } finally {
            removeTree(base);
            removeTree(bundles);
            // the tests' parent cgroup, which the runtime (as runc) leaves
            try (Stream<Path> hierarchies = Files.list(CGROUP_V1)) {
                for (Path hierarchy : hierarchies.toList()) {
                    Files.deleteIfExists(hierarchy.resolve("jrunc-shim-host-test"));
                }
            }
        }
    }

    /** Tasks of a test that failed half-way: killed and deleted, so that the next tests start clean. */
    private static final List<String> ids = new java.util.concurrent.CopyOnWriteArrayList<>();

    @AfterEach
    void nothingMounted() throws IOException {
        for (String id : ids) {
            try {
                backend.kill(id, "", 9, true);
            } catch (RpcException e) {
                // deleted by the test, as it should be
            }
            try {
                backend.delete(id, "");
            } catch (RpcException e) {
                // deleted by the test
            }
        }
        ids.clear();
        if (bundles != null) {
            assertFalse(Files.readString(Path.of("/proc/self/mountinfo")).contains(bundles.toString()),
                    "a rootfs is still mounted");
        }
    }

    private static void removeTree(Path dir) throws IOException {
        if (dir == null || !Files.exists(dir)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(dir)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }

    private static TestBundle bundle(String id) throws IOException {
        ids.add(id);
        return new TestBundle(bundles, id);
    }

    private static final TaskRequests.Stdio NO_STDIO = new TaskRequests.Stdio("", "", "", false);

    /** Create, start, wait: the exit as await returns it. */
    private static ProcessExit run(TestBundle b) throws Exception {
        backend.create(b.create(NS, NO_STDIO));
        backend.start(b.id, "");
        return backend.await(b.id, "");
    }

    /** The task gone without a trace: no state directory, cgroup or rootfs mount. */
    private static void assertGone(TestBundle b) throws IOException {
        assertFalse(Files.exists(base.resolve(NS).resolve(b.id)), "state directory of " + b.id);
        try (Stream<Path> hierarchies = Files.list(CGROUP_V1)) {
            for (Path hierarchy : hierarchies.toList()) {
                assertFalse(Files.exists(Path.of(hierarchy + b.cgroupsPath())), "cgroup " + hierarchy + b.cgroupsPath());
            }
        }
        assertFalse(Files.readString(Path.of("/proc/self/mountinfo")).contains(b.dir.resolve("rootfs").toString()),
                "rootfs of " + b.id + " still mounted");
        assertThrows(RpcException.class, () -> backend.state(b.id, ""));
    }

    /**
     * Opens the fifo for reading now (after create, the waiting process holds its write end, so the
     * open returns at once; opened after the process ended it would wait for a writer for ever) and
     * reads it to end of file on a thread of its own.
     */
    private static CompletableFuture<byte[]> reader(Path fifo) throws IOException {
        InputStream in = new FileInputStream(fifo.toFile());
        CompletableFuture<byte[]> all = new CompletableFuture<>();
        Thread.ofPlatform().daemon(true).start(() -> {
            try (in) {
                all.complete(in.readAllBytes());
            } catch (IOException e) {
                all.completeExceptionally(e);
            }
        });
        return all;
    }

    private static CompletableFuture<String> textReader(Path fifo) throws IOException {
        return reader(fifo).thenApply(b -> new String(b, StandardCharsets.UTF_8));
    }

    @Test
    void exitCodeIsReportedOnceAndTheTaskLeavesNothing() throws Exception {
        TestBundle b = bundle("exit7").sh("exit 7");
        int pid = backend.create(b.create(NS, NO_STDIO));
        assertTrue(pid > 0);
        assertEquals(TaskStatus.Phase.CREATED, backend.state(b.id, "").phase());
        assertTrue(Files.isDirectory(base.resolve(NS).resolve(b.id)), "state under the namespace's root");
        assertEquals(pid, backend.start(b.id, ""));
        ProcessExit exit;
        events.exitDelayMillis = 300;
        try {
            exit = backend.await(b.id, "");
            // the sink heard of the exit before Wait answered, however slow it is
            assertEquals(1, events.exitsOf(b.id, "").size());
        } finally {
            events.exitDelayMillis = 0;
        }
        assertEquals(7, exit.status());
        assertEquals(pid, exit.pid());
        assertEquals(TaskStatus.Phase.STOPPED, backend.state(b.id, "").phase());
        assertEquals(7, backend.delete(b.id, "").status());
        assertEquals(1, events.exitsOf(b.id, "").size());
        assertEquals(7, events.exitsOf(b.id, "").getFirst().exit().status());
        assertGone(b);
    }

    @Test
    void killedBySignalIs128PlusTheSignal() throws Exception {
        TestBundle k = bundle("sigkill").sh("sleep 100");
        backend.create(k.create(NS, NO_STDIO));
        backend.start(k.id, "");
        backend.kill(k.id, "", 9, false);
        assertEquals(137, backend.await(k.id, "").status());
        backend.delete(k.id, "");
        assertGone(k);

        // not a PID 1 (which ignores SIGTERM without a handler): it dies of it
        TestBundle t = bundle("sigterm").sh("sleep 100").hostPidNamespace();
        backend.create(t.create(NS, NO_STDIO));
        backend.start(t.id, "");
        backend.kill(t.id, "", 15, false);
        assertEquals(143, backend.await(t.id, "").status());
        assertThrows(RpcException.class, () -> backend.kill(t.id, "", 15, false), "a finished process");
        backend.delete(t.id, "");
        assertEquals(1, events.exitsOf(t.id, "").size());
        assertGone(t);
    }

    @Test
    void aMebibyteOfStdoutAndStderrComesThroughTheFifos() throws Exception {
        TestBundle b = bundle("bigout");
        byte[] data = new byte[1 << 20];
        new Random(20).nextBytes(data);
        Files.write(b.tree.resolve("data"), data);
        b.sh("cat /data; cat /data >&2");
        Path out = b.fifo("stdout");
        Path err = b.fifo("stderr");
        backend.create(b.create(NS, new TaskRequests.Stdio("", out.toString(), err.toString(), false)));
        CompletableFuture<byte[]> o = reader(out);
        CompletableFuture<byte[]> e = reader(err);
        backend.start(b.id, "");
        assertArrayEquals(data, o.get(60, TimeUnit.SECONDS));
        assertArrayEquals(data, e.get(60, TimeUnit.SECONDS));
        assertEquals(0, backend.await(b.id, "").status());
        backend.delete(b.id, "");
        assertGone(b);
    }

    @Test
    void stdinIsPipedThroughAndClosedOnRequest() throws Exception {
        TestBundle b = bundle("stdin").sh("tr a-z A-Z; echo done");
        Path in = b.fifo("stdin");
        Path out = b.fifo("stdout");
        backend.create(b.create(NS, new TaskRequests.Stdio(in.toString(), out.toString(), "", false)));
        CompletableFuture<String> o = textReader(out);
        backend.start(b.id, "");
        try (FileOutputStream w = new FileOutputStream(in.toFile())) {
            w.write("hello shim\n".getBytes(StandardCharsets.UTF_8));
            w.flush();
            // containerd's writer stays open: the process reads on until the shim is told to close its stdin
            Thread.sleep(300);
            assertEquals(TaskStatus.Phase.RUNNING, backend.state(b.id, "").phase());
            backend.closeStdin(b.id, "");
            assertEquals("HELLO SHIM\ndone\n", o.get(30, TimeUnit.SECONDS));
        }
        assertEquals(0, backend.await(b.id, "").status());
        backend.delete(b.id, "");
        assertGone(b);
    }

    @Test
    void stdinEndsWhenEveryWriterOfItsFifoHasClosedIt() throws Exception {
        // ctr closes its end at the end of its input, and sends no CloseIO when that came before its
        // Exec returned: the process must read end of file all the same (containerd's runc shim does)
        TestBundle b = bundle("stdineof").sh("cat; echo done");
        Path in = b.fifo("stdin");
        Path out = b.fifo("stdout");
        backend.create(b.create(NS, new TaskRequests.Stdio(in.toString(), out.toString(), "", false)));
        CompletableFuture<String> o = textReader(out);
        backend.start(b.id, "");
        Thread.sleep(300); // no writer has opened the fifo yet: that is no end of input
        assertEquals(TaskStatus.Phase.RUNNING, backend.state(b.id, "").phase());
        try (FileOutputStream w = new FileOutputStream(in.toFile())) {
            w.write("line one\nline two\n".getBytes(StandardCharsets.UTF_8));
        }
        assertEquals("line one\nline two\ndone\n", o.get(30, TimeUnit.SECONDS));
        assertEquals(0, backend.await(b.id, "").status());
        backend.delete(b.id, "");
        assertGone(b);
    }

    private static byte[] process(String... args) throws IOException {
        var node = TestBundle.JSON.createObjectNode();
        var a = node.putArray("args");
        for (String arg : args) {
            a.add(arg);
        }
        node.put("cwd", "/");
        node.putArray("env").add("PATH=/bin");
        node.putObject("user").put("uid", 0).put("gid", 0);
        return TestBundle.JSON.writeValueAsBytes(node);
    }

    private static byte[] terminalProcess(String... args) throws IOException {
        var node = (com.fasterxml.jackson.databind.node.ObjectNode) TestBundle.JSON.readTree(process(args));
        node.put("terminal", true);
        node.putObject("consoleSize").put("height", 24).put("width", 80);
        return TestBundle.JSON.writeValueAsBytes(node);
    }

    @Test
    void execsReportTheirStatusTerminalsResizeAndAStoppedTaskRefusesThem() throws Exception {
        TestBundle b = bundle("execs").sh("sleep 100");
        backend.create(b.create(NS, NO_STDIO));
        backend.start(b.id, "");

        backend.exec(new TaskRequests.Exec(b.id, "three", NO_STDIO, process("sh", "-c", "exit 3")));
        assertEquals(TaskStatus.Phase.CREATED, backend.state(b.id, "three").phase());
        int pid = backend.start(b.id, "three");
        assertTrue(pid > 0);
        assertEquals(3, backend.await(b.id, "three").status());
        assertEquals(3, backend.delete(b.id, "three").status());
        assertEquals(1, events.exitsOf(b.id, "three").size());

        backend.exec(new TaskRequests.Exec(b.id, "term", NO_STDIO, process("sleep", "100")));
        backend.start(b.id, "term");
        backend.kill(b.id, "term", 15, false);
        assertEquals(143, backend.await(b.id, "term").status());
        assertEquals(Code.NOT_FOUND, assertThrows(RpcException.class, () -> backend.kill(b.id, "term", 9, false)).code());
        backend.delete(b.id, "term");

        Path in = b.fifo("tty-in");
        Path out = b.fifo("tty-out");
        backend.exec(new TaskRequests.Exec(b.id, "tty", new TaskRequests.Stdio(in.toString(), out.toString(), "", true),
                terminalProcess("sh", "-c", "stty size; read line; stty size")));
        backend.start(b.id, "tty");
        // the exec's streams exist from its start; it waits for a line, so its terminal is still open
        CompletableFuture<String> o = textReader(out);
        Thread.sleep(300);
        backend.resizePty(b.id, "tty", 100, 40);
        try (FileOutputStream w = new FileOutputStream(in.toFile())) {
            w.write("\n".getBytes(StandardCharsets.UTF_8));
        }
        assertEquals(0, backend.await(b.id, "tty").status());
        String seen = o.get(30, TimeUnit.SECONDS);
        assertTrue(seen.contains("24 80"), "size before: " + seen);
        assertTrue(seen.contains("40 100"), "size after the resize: " + seen);
        backend.delete(b.id, "tty");

        assertEquals(RpcException.class, assertThrows(RpcException.class,
                () -> backend.exec(new TaskRequests.Exec(b.id, "three", NO_STDIO, new byte[] {'{'}))).getClass());
        backend.kill(b.id, "", 9, false);
        backend.await(b.id, "");
        RpcException stopped = assertThrows(RpcException.class,
                () -> backend.exec(new TaskRequests.Exec(b.id, "late", NO_STDIO, process("true"))));
        assertEquals(Code.FAILED_PRECONDITION, stopped.code());
        backend.delete(b.id, "");
        assertGone(b);
    }

    @Test
    void pauseResumeUpdateAndStatsReachTheCgroup() throws Exception {
        TestBundle b = bundle("cgroup").sh("sleep 100");
        backend.create(b.create(NS, NO_STDIO));
        backend.start(b.id, "");
        Path freezer = CGROUP_V1.resolve("freezer" + b.cgroupsPath()).resolve("freezer.state");
        backend.pause(b.id);
        assertEquals("FROZEN", Files.readString(freezer).trim());
        assertEquals(TaskStatus.Phase.PAUSED, backend.state(b.id, "").phase());
        backend.resume(b.id);
        assertEquals("THAWED", Files.readString(freezer).trim());
        assertEquals(TaskStatus.Phase.RUNNING, backend.state(b.id, "").phase());

        backend.update(b.id, "{\"memory\":{\"limit\":67108864}}".getBytes(StandardCharsets.UTF_8));
        assertEquals("67108864", Files.readString(CGROUP_V1.resolve("memory" + b.cgroupsPath())
                .resolve("memory.limit_in_bytes")).trim());

        TaskStats stats = backend.stats(b.id);
        assertFalse(stats.cgroupV2());
        assertTrue(stats.memoryUsageBytes() > 0, "memory usage " + stats);
        assertEquals(67108864, stats.memoryLimitBytes());
        assertTrue(stats.pidsCurrent() >= 1, "pids " + stats);
        assertTrue(stats.cpuUsageNanos() > 0, "cpu " + stats);
        List<TaskStatus.ProcessPid> pids = backend.pids(b.id);
        assertEquals(backend.taskPid(b.id), pids.getFirst().pid());

        backend.kill(b.id, "", 9, true);
        assertEquals(137, backend.await(b.id, "").status());
        backend.delete(b.id, "");
        assertGone(b);
    }

    @Test
    void aContainerOverItsMemoryLimitGivesAnOomEvent() throws Exception {
        TestBundle b = bundle("oom").sh("tail /dev/zero").memoryLimit(16 << 20);
        ProcessExit exit = run(b);
        assertEquals(137, exit.status());
        backend.delete(b.id, "");
        assertTrue(events.ooms.contains(b.id), "oom events: " + events.ooms);
        assertEquals(1, events.ooms.stream().filter(b.id::equals).count(), "one OOM kill, one event");
        // containerd hears of the OOM before the exit it caused
        assertEquals(List.of("oom " + b.id, "exit " + b.id + "/"),
                events.order.stream().filter(e -> e.contains(" " + b.id)).toList());
        assertGone(b);
    }

    @Test
    @Timeout(value = 600, unit = TimeUnit.SECONDS)
    void twoHundredShortContainersEachReportOneExit() throws Exception {
        long fdsBefore = openDescriptors();
        for (int i = 0; i < 200; i++) {
            TestBundle b = bundle("short" + i).sh("echo " + i + "; exit " + (i % 5));
            Path out = b.fifo("stdout");
            backend.create(b.create(NS, new TaskRequests.Stdio("", out.toString(), "", false)));
            CompletableFuture<String> o = textReader(out);
            backend.start(b.id, "");
            assertEquals(i % 5, backend.await(b.id, "").status());
            assertEquals(i + "\n", o.get(10, TimeUnit.SECONDS));
            assertEquals(i % 5, backend.delete(b.id, "").status());
            List<RecordedEvents.Exit> exits = events.exitsOf(b.id, "");
            assertEquals(1, exits.size(), b.id + ": " + exits);
            assertGone(b);
            removeTree(b.dir);
            removeTree(b.tree);
        }
        // each task's descriptors (fifos, pipes, console sockets) went with it
        assertTrue(openDescriptors() < fdsBefore + 20, "descriptors before " + fdsBefore + ", after " + openDescriptors());
    }

    private static long openDescriptors() throws IOException {
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
            return fds.count();
        }
    }

    @Test
    void failedCreatesLeaveNothing() throws Exception {
        TestBundle noConfig = bundle("noconfig");
        Files.delete(noConfig.dir.resolve("config.json"));
        RpcException e = assertThrows(RpcException.class, () -> backend.create(noConfig.create(NS, NO_STDIO)));
        assertEquals(Code.INVALID_ARGUMENT, e.code());
        assertTrue(e.getMessage().contains("config.json"), e.getMessage());
        assertGone(noConfig);

        TestBundle badMount = bundle("badmount");
        TaskRequests.Create bad = new TaskRequests.Create(badMount.id, badMount.dir, NS,
                List.of(badMount.bind(), new TaskRequests.Mount("bind", "/nonexistent-source", "etc", List.of("rbind"))),
                NO_STDIO, Map.of());
        e = assertThrows(RpcException.class, () -> backend.create(bad));
        assertTrue(e.getMessage().contains("rootfs[1]"), e.getMessage());
        assertGone(badMount);

        TestBundle twice = bundle("twice").sh("sleep 100");
        backend.create(twice.create(NS, NO_STDIO));
        e = assertThrows(RpcException.class, () -> backend.create(twice.create(NS, NO_STDIO)));
        assertEquals(Code.ALREADY_EXISTS, e.code());
        // the first is untouched: it starts and runs
        backend.start(twice.id, "");
        assertEquals(TaskStatus.Phase.RUNNING, backend.state(twice.id, "").phase());
        backend.kill(twice.id, "", 9, false);
        backend.await(twice.id, "");
        backend.delete(twice.id, "");
        assertGone(twice);

        // a created task deleted without a start: killed, and its exit reported once
        TestBundle unstarted = bundle("unstarted").sh("true");
        backend.create(unstarted.create(NS, NO_STDIO));
        assertNotNull(backend.delete(unstarted.id, ""));
        assertEquals(1, events.exitsOf(unstarted.id, "").size());
        assertGone(unstarted);
    }

    @Test
    void orphansAreReapedByTheShimAndTheJdksChildrenKeepTheirStatus() throws Exception {
        // a container in the host's pid namespace whose shell leaves a child behind when it exits
        TestBundle b = bundle("orphan").sh("sleep 2 & echo $! > /tmp/orphan; exit 0").hostPidNamespace();
        Process jdkChild = new ProcessBuilder("sh", "-c", "sleep 2.5; exit 5").start();
        assertEquals(0, run(b).status());
        int orphan = Integer.parseInt(Files.readString(b.tree.resolve("tmp/orphan")).trim());
        Path status = Path.of("/proc", Integer.toString(orphan), "status");
        String parent = Files.readAllLines(status).stream().filter(l -> l.startsWith("PPid:")).findFirst().orElseThrow();
        assertEquals(ProcessHandle.current().pid(), Long.parseLong(parent.substring(5).trim()),
                "the orphan is re-parented to the shim, its subreaper");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (Files.exists(status) && System.nanoTime() < deadline) {
            Thread.sleep(100);
        }
        assertFalse(Files.exists(status), "the orphan was reaped, not left a zombie");
        assertEquals(5, jdkChild.waitFor(), "the JDK's own child kept its exit status");
        backend.delete(b.id, "");
        assertEquals(1, events.exitsOf(b.id, "").size());
        assertGone(b);
    }

    @Test
    void aTaskWithATerminalGetsItsInputOutputAndSize() throws Exception {
        TestBundle b = bundle("tty").terminal().sh("stty size; read line; echo got $line; stty size");
        ((com.fasterxml.jackson.databind.node.ObjectNode) b.config.get("process")).putObject("consoleSize")
                .put("height", 24).put("width", 80);
        b.write();
        Path in = b.fifo("stdin");
        Path out = b.fifo("stdout");
        backend.create(b.create(NS, new TaskRequests.Stdio(in.toString(), out.toString(), "", true)));
        CompletableFuture<String> o = textReader(out);
        backend.start(b.id, "");
        Thread.sleep(300);
        backend.resizePty(b.id, "", 120, 50);
        try (FileOutputStream w = new FileOutputStream(in.toFile())) {
            w.write("hello\n".getBytes(StandardCharsets.UTF_8));
        }
        assertEquals(0, backend.await(b.id, "").status());
        String seen = o.get(30, TimeUnit.SECONDS);
        assertTrue(seen.contains("24 80"), "size before: " + seen);
        assertTrue(seen.contains("got hello"), "input through the terminal: " + seen);
        assertTrue(seen.contains("50 120"), "size after the resize: " + seen);
        RpcException noTerminal = assertThrows(RpcException.class, () -> backend.resizePty("nosuch", "", 1, 1));
        assertEquals(Code.NOT_FOUND, noTerminal.code());
        backend.delete(b.id, "");
        assertGone(b);
    }

    @Test
    void aDeadShimsTaskIsDeletedFromItsStateAlone() throws Exception {
        TestBundle b = bundle("deadshim").sh("sleep 100");
        int pid = backend.create(b.create(NS, NO_STDIO));
        backend.start(b.id, "");
        // a SIGKILLed shim's scratch directory (its pid now dead), and a live one's, which stays
        Process gone = new ProcessBuilder("true").start();
        gone.waitFor();
        Path deadScratch = Files.createDirectories(base.resolve(".shim-" + gone.pid()));
        Files.writeString(deadScratch.resolve("exec-1.pid"), "1234");
        Path liveScratch = Files.createDirectories(base.resolve(".shim-" + ProcessHandle.current().pid()));
        // a shim killed a moment ago is a zombie until its parent collects it: gone all the same
        // (the background sleep ends after its shell has become a sleep that never collects it; a child
        // that ended before the exec could be reaped by the shell first, leaving no zombie to test with)
        Process parent = new ProcessBuilder("sh", "-c", "sleep 0.2 & echo $!; exec sleep 30").start();
        long zombiePid = Long.parseLong(new java.io.BufferedReader(new java.io.InputStreamReader(parent.getInputStream()))
                .readLine().strip());
        Path zombieScratch = Files.createDirectories(base.resolve(".shim-" + zombiePid));
        for (int i = 0; i < 100 && !Files.readString(Path.of("/proc/" + zombiePid + "/stat")).contains(") Z "); i++) {
            Thread.sleep(20);
        }
        assertTrue(Files.readString(Path.of("/proc/" + zombiePid + "/stat")).contains(") Z "), "no zombie to test with");
        // what containerd's `shim delete` does once this shim is gone: only the state root is left to go by
        assertEquals(pid, HostTaskBackend.deleteAfterDeadShim(base, NS, b.id));
        assertFalse(Files.exists(deadScratch), "a dead shim's scratch directory");
        assertFalse(Files.exists(zombieScratch), "a zombie shim's scratch directory");
        parent.destroyForcibly().waitFor();
        assertTrue(Files.isDirectory(liveScratch), "a live shim's scratch directory");
        assertEquals(137, backend.await(b.id, "").status());
        assertFalse(Files.exists(base.resolve(NS).resolve(b.id)), "state directory");
        try (Stream<Path> hierarchies = Files.list(CGROUP_V1)) {
            for (Path hierarchy : hierarchies.toList()) {
                assertFalse(Files.exists(Path.of(hierarchy + b.cgroupsPath())), "cgroup " + hierarchy + b.cgroupsPath());
            }
        }
        assertEquals(0, HostTaskBackend.deleteAfterDeadShim(base, NS, b.id), "nothing left the second time");
        assertEquals(Code.INVALID_ARGUMENT,
                assertThrows(RpcException.class, () -> HostTaskBackend.deleteAfterDeadShim(base, "../x", "y")).code());
        // this (living) shim's record goes too, unmounting the rootfs
        backend.delete(b.id, "");
        assertGone(b);
    }
}
