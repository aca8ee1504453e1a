package io.jrunc.vm.monitor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrunc.vm.cli.Main;
import io.jrunc.vm.state.ContainerRecord;
import io.jrunc.vm.state.PodRecord;
import io.jrunc.vm.state.StateRoot;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The container commands end to end on the host: the CLI (in-process) -> the pod monitor -> the
 * stand-in guest (StandInGuest: the protocol's real server with canned agent behaviour, since no VM
 * boots on the build host). The pod's "qemu" is this JVM (its pid and start time in pod.json), so the
 * pod counts as running; the monitor is started in-process by the CLI's starter, which takes the
 * monitor's lock as the monitor's process does (so the CLI finds the monitor alive).
 */
class CliThroughMonitorTest {
    @TempDir
    Path dir;
    StateRoot root;
    StandInGuest guest;
    PodMonitor monitor;
    java.nio.channels.FileChannel monitorLock;
    int starts;

    record Result(int code, String out, String err) {
    }

    @BeforeEach
    void setUp() throws Exception {
        root = new StateRoot(dir);
        ProcessHandle self = ProcessHandle.current();
        PodRecord pod = PodRecord.created("p1", false, PodRecord.Config.of(1, 256L << 20, "podhost"))
                .withVm(new PodRecord.Vm(self.pid(), self.info().startInstant().orElseThrow().toEpochMilli(), "sha256:x"));
        root.write(pod);
        root.write(new ContainerRecord("c1", "p1", "/bundle", "jr01", List.of("sleep", "9"), 1, "running", 0));
        guest = new StandInGuest(root.podDir("p1").resolve("agent.sock"));
    }

    @AfterEach
    void tearDown() throws Exception {
        if (monitor != null) {
            monitor.close();
        }
        if (monitorLock != null) {
            monitorLock.close();
        }
        guest.close();
    }

    Result run(String stdin, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        InputStream saved = System.in;
        if (stdin != null) {
            System.setIn(new ByteArrayInputStream(stdin.getBytes(StandardCharsets.UTF_8)));
        }
        try {
            String[] all = Stream.concat(Stream.of("--root", dir.toString()), Stream.of(args)).toArray(String[]::new);
            int code = Main.run(all, new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8),
                    (r, pod) -> {
                        starts++;
                        try {
                            monitorLock = java.nio.channels.FileChannel.open(root.podDir(pod).resolve("monitor.lock"),
                                    java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.WRITE);
                            monitorLock.lock();
                            monitor = PodMonitor.start(root, root.pod(pod).orElseThrow(), new StandInVm(root.podDir(pod).resolve("agent.sock")),
                                    MonitorTest.FAST);
                        } catch (Exception e) {
                            throw new java.io.IOException(e);
                        }
                        return null;
                    });
            return new Result(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
        } finally {
            System.setIn(saved);
        }
    }

    @Test
    void execPassesOutputStdinAndStatus() {
        Result r = run("ping\n", "exec", "-i", "c1", "cat");
        assertEquals(7, r.code(), r.err());
        assertEquals("out\n", r.out());
        assertEquals("err\n", r.err());
        assertEquals(1, starts, "the first call started the monitor");
        assertTrue(guest.execs.getFirst().endsWith(":cat"), guest.execs.toString());
        assertEquals("ping\n", guest.stdin.toString());
        assertTrue(guest.stdinClosed.get(), "end of stdin closes the process's stdin");

        Result again = run(null, "exec", "c1", "true");
        assertEquals(7, again.code());
        assertEquals(1, starts, "the live monitor is reused");
    }

    @Test
    void aCommandNotFoundIs127() {
        Result r = run(null, "exec", "c1", "/bin/no-such");
        assertEquals(127, r.code(), r.err());
        assertEquals(1, r.err().lines().count(), r.err());
        assertTrue(r.err().contains("executable file not found"), r.err());
    }

    @Test
    void lsInspectKillStop() throws Exception {
        Result ls = run(null, "ls", "--format", "json");
        assertEquals(0, ls.code(), ls.err());
        assertTrue(ls.out().contains("\"state\" : \"running\""), ls.out());
        Result inspect = run(null, "inspect", "c1");
        assertTrue(inspect.out().contains("\"pid\" : 7"), inspect.out());
        assertEquals(0, run(null, "kill", "-s", "TERM", "c1").code());
        assertEquals(List.of("c1:15"), guest.signals);
        assertEquals(0, run(null, "stop", "-t", "1", "c1").code());
        assertEquals("stopped", root.container("c1").orElseThrow().lastState());
        assertEquals(143, root.container("c1").orElseThrow().exitCode());
        Result pod = run(null, "pod", "inspect", "p1");
        assertTrue(pod.out().contains("\"agent\" : \"stand-in 1." + io.jrunc.agent.api.AgentProtocol.MINOR + "\""),
                pod.out());
        // the guest's figures (the agent's Pod Stats, passed through the monitor)
        assertTrue(pod.out().contains("\"memAvailable\" : " + (300L << 20)), pod.out());
        assertTrue(pod.out().contains("\"agentCgroup\" : \"0::/agent\""), pod.out());
    }

    @Test
    void lsAndInspectOfARunningPodReadTheRecordsAndAskTheGuestNothing() throws Exception {
        root.write(new ContainerRecord("c2", "p1", "/bundle", "jr02", List.of("sleep", "9"), 2, "running", 0));
        root.write(new ContainerRecord("created3", "p1", "/bundle", "jr03", List.of("sleep", "9"), 3, "created", 0));
        assertEquals(0, run(null, "inspect", "c1").code(), "the monitor started");
        int versions = guest.versions.get();
        int inspects = guest.inspectDeadlines.size();
        Result ls = run(null, "ls", "--format", "json");
        assertEquals(0, ls.code(), ls.err());
        assertEquals(2, ls.out().split("\"state\" : \"running\"", -1).length - 1, ls.out());
        assertTrue(ls.out().contains("\"state\" : \"created\""), ls.out());
        Result inspect = run(null, "inspect", "c1");
        assertTrue(inspect.out().contains("\"state\" : \"running\"") && inspect.out().contains("\"pid\" : 7"), inspect.out());
        assertEquals(0, guest.versions.get() - versions, "no connection to the monitor");
        assertEquals(0, guest.inspectDeadlines.size() - inspects, "no Inspect in the guest");
        assertEquals(1, starts);
    }

    @Test
    void aContainerThatEndsByItselfIsRecordedStoppedWithItsCode() throws Exception {
        root.write(new ContainerRecord("ends1", "p1", "/bundle", "jr04", List.of("true"), 4, "created", 0).created(42));
        java.nio.file.Files.writeString(root.containerDir("p1", "ends1").resolve("config.json"), "{}");
        assertEquals(0, run(null, "start", "ends1").code());
        // the monitor's Wait in the guest answers (3 here): no CLI call waited for it
        String out = "";
        for (int i = 0; i < 100 && !out.contains("\"state\" : \"stopped\""); i++) {
            Thread.sleep(50);
            out = run(null, "inspect", "ends1").out();
        }
        assertTrue(out.contains("\"state\" : \"stopped\"") && out.contains("\"exitCode\" : 3") && out.contains("\"pid\" : 0"), out);
        assertEquals("stopped", root.container("ends1").orElseThrow().lastState());
    }

    @Test
    void pauseAndUnpauseAreRecorded() throws Exception {
        assertEquals(0, run(null, "pause", "c1").code());
        assertEquals("paused", root.container("c1").orElseThrow().lastState());
        assertTrue(run(null, "ls").out().contains("paused"));
        assertEquals(0, run(null, "unpause", "c1").code());
        assertEquals("running", root.container("c1").orElseThrow().lastState());
        assertEquals(List.of("pause c1", "resume c1"), guest.freezes);
    }

    @Test
    void runCreatesStartsFollowsTheLogAndRemoves() throws Exception {
        Path bundle = dir.resolve("bundle");
        java.nio.file.Files.createDirectories(bundle.resolve("rootfs/bin"));
        java.nio.file.Files.writeString(bundle.resolve("config.json"), """
                {"process": {"args": ["sh"]}, "root": {"path": "rootfs"}, "hostname": "x",
                 "linux": {"namespaces": [{"type": "network"}, {"type": "pid"}]}}""");
        Result r = run(null, "run", "--rm", "--pod", "p1", "--name", "c2", "-m", "64m", bundle.toString(), "echo", "hi");
        assertEquals(0, r.code(), r.err());
        assertEquals("hello from c2\n", r.out(), "run shows the container's output, from its log");
        var create = guest.created.getFirst();
        assertEquals("c2", create.getId());
        String config = create.getOciConfig().toStringUtf8();
        assertTrue(config.contains("\"hostname\":\"podhost\"") && config.contains("\"limit\":67108864")
                && !config.contains("network") && config.contains("[\"echo\",\"hi\"]"), config);
        assertEquals(List.of("c2"), guest.started);
        assertEquals(List.of("c2"), guest.removed, "--rm removed it");
        assertTrue(root.container("c2").isEmpty());
        assertTrue(java.nio.file.Files.notExists(root.containerDir("p1", "c2")), "its image and logs went with it");
    }

    @Test
    void runShowsOutputThatReachesTheLogAfterTheProcessEnded() throws Exception {
        // the stand-in's Wait answers at once, its output comes 0.8 s later: run prints it all because
        // the monitor says when its copy reached the end of file (AwaitOutput), not when the log file
        // stopped growing for a while
        Path bundle = dir.resolve("bundle");
        java.nio.file.Files.createDirectories(bundle.resolve("rootfs/bin"));
        java.nio.file.Files.writeString(bundle.resolve("config.json"), """
                {"process": {"args": ["sh"]}, "root": {"path": "rootfs"}}""");
        Result r = run(null, "run", "--rm", "--pod", "p1", "--name", "late", bundle.toString(), "true");
        assertEquals(0, r.code(), r.err());
        assertEquals("late output\n", r.out());
    }

    @Test
    void rmRemovesInTheGuestUnplugsAndFreesTheName() throws Exception {
        assertEquals(0, run(null, "rm", "-f", "c1").code());
        assertEquals(List.of("c1"), guest.removed);
        assertTrue(root.container("c1").isEmpty());
        // the monitor's Wait for c1 answered when the removal killed it: its record does not come back
        Thread.sleep(300);
        assertTrue(java.nio.file.Files.notExists(root.containerDir("p1", "c1")));
    }
}
