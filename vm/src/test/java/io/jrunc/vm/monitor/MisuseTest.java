package io.jrunc.vm.monitor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.protobuf.ByteString;
import io.jrunc.agent.api.AgentClient;
import io.jrunc.agent.api.pb.v1.CreateContainerRequest;
import io.jrunc.ttrpc.Code;
import io.jrunc.ttrpc.RpcException;
import io.jrunc.vm.Containers;
import io.jrunc.vm.Pods;
import io.jrunc.vm.VmException;
import io.jrunc.vm.cli.Main;
import io.jrunc.vm.monitor.pb.AddContainerRequest;
import io.jrunc.vm.monitor.pb.RemoveContainerRequest;
import io.jrunc.vm.state.ContainerRecord;
import io.jrunc.vm.state.PodRecord;
import io.jrunc.vm.state.StateRoot;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * jrunc-vm under misuse, on the host: the CLI (in-process) and the library through monitors on the
 * stand-in guest (StandInGuest, whose containers behave as their ids say). A pod's "qemu" here is a
 * real process (`sleep`), recorded in pod.json as the monitor records qemu, so that a pod ended at
 * once really loses it; a monitor still booting, or a qemu no pod.json names, is a process whose
 * command line looks like one. PodVmTest does the same with real VMs and CLI processes killed part-way.
 */
class MisuseTest {
    @TempDir
    Path dir;
    StateRoot root;
    Path bundle;
    final Map<String, StandInGuest> guests = new ConcurrentHashMap<>();
    final Map<String, StandInVm> vms = new ConcurrentHashMap<>();
    final List<PodMonitor> monitors = new CopyOnWriteArrayList<>();
    final List<Process> processes = new CopyOnWriteArrayList<>();
    final AtomicInteger starts = new AtomicInteger();

    record Result(int code, String out, String err, long millis) {
    }

    @BeforeEach
    void setUp() throws Exception {
        root = new StateRoot(dir.resolve("root"));
        bundle = dir.resolve("bundle");
        Files.createDirectories(bundle.resolve("rootfs/bin"));
        Files.writeString(bundle.resolve("config.json"), """
                {"process": {"args": ["sh"]}, "root": {"path": "rootfs"}}""");
    }

    @AfterEach
    void tearDown() throws Exception {
        for (PodMonitor m : monitors) {
            m.close();
        }
        for (StandInGuest g : guests.values()) {
            g.close();
        }
        for (Process p : processes) {
            p.destroyForcibly();
        }
    }

    /** A pod with a stand-in guest on its agent.sock (not running until {@link #qemu} or a boot). */
    PodRecord pod(String name, boolean anonymous) throws Exception {
        Path kernel = Files.writeString(dir.resolve("vmlinuz"), "k");
        Path initrd = Files.writeString(dir.resolve("initrd.cpio"), "i");
        PodRecord pod = PodRecord.created(name, anonymous, PodRecord.Config.of(1, 256L << 20, name)
                .withImage(kernel.toString(), initrd.toString()));
        root.write(pod);
        guests.put(name, new StandInGuest(root.podDir(name).resolve("agent.sock")));
        vms.put(name, new StandInVm(root.podDir(name).resolve("agent.sock")));
        return pod;
    }

    /** A process standing in for the pod's qemu, recorded in pod.json: the pod runs while it lives. */
    Process qemu(String pod) throws Exception {
        Process p = spawn("sleep", "1000");
        PodRecord rec = root.pod(pod).orElseThrow();
        root.write(rec.withVm(new PodRecord.Vm(p.pid(), p.info().startInstant().orElseThrow().toEpochMilli(), "sha256:x")));
        return p;
    }

    Process spawn(String... command) throws IOException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        processes.add(p);
        return p;
    }

    /** Boots a pod as the real starter would: its "qemu" first, then a monitor on its stand-in guest. */
    final MonitorLink.Starter starter = (r, pod) -> {
        starts.incrementAndGet();
        try {
            if (PodMonitor.runningQemu(root.pod(pod).orElseThrow()).isEmpty()) {
                qemu(pod);
            }
            monitors.add(PodMonitor.start(root, root.pod(pod).orElseThrow(), vms.get(pod), MonitorTest.FAST));
        } catch (Exception e) {
            throw new IOException(e);
        }
        return null;
    };

    Result cli(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        String[] all = Stream.concat(Stream.of("--root", root.path().toString(), "--boot-timeout", "20"), Stream.of(args))
                .toArray(String[]::new);
        long t0 = System.nanoTime();
        int code = Main.run(all, new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8),
                starter);
        return new Result(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8),
                (System.nanoTime() - t0) / 1_000_000);
    }

    Result ok(String... args) {
        Result r = cli(args);
        assertEquals(0, r.code(), String.join(" ", args) + ": " + r.err());
        return r;
    }

    Containers containers(Duration create, Duration query) {
        Pods pods = new Pods(root, new MonitorLink(root, starter, Duration.ofSeconds(20)));
        return new Containers(pods, new Containers.Timeouts(create, query));
    }

    ContainerRecord container(String name, String pod, String state) throws Exception {
        ContainerRecord c = new ContainerRecord(name, pod, bundle.toString(), "jr" + name, List.of("sh"), 1, state, 0);
        root.write(c);
        return c;
    }

    static void await(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        while (!condition.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, "timed out waiting for " + what);
            Thread.sleep(20);
        }
    }

    @Test
    void aCreatedContainerIsRemovedWithoutForceAndStoppedWithoutWaiting() throws Exception {
        pod("p1", false);
        qemu("p1");
        container("created1", "p1", "created");
        Result rm = ok("rm", "created1");
        assertEquals("created1\n", rm.out());
        assertEquals(List.of("created1"), guests.get("p1").removed, "removed in the guest, its waiting process killed first");
        assertTrue(vms.get("p1").detached.contains("jrcreated1"), "its disk unplugged");
        assertTrue(root.container("created1").isEmpty());

        // stop: a created container's process only waits to be started (and ignores SIGTERM as PID 1):
        // SIGKILL at once, not after the grace period; a running one keeps its grace
        container("created2", "p1", "created");
        container("running2", "p1", "running");
        ok("stop", "created2");
        ok("stop", "-t", "3", "running2");
        assertEquals(List.of("created2:0", "running2:3000"), guests.get("p1").stops);
        assertEquals("stopped", root.container("created2").orElseThrow().lastState());

        // a running one is still refused without -f, saying so
        container("running3", "p1", "running");
        Result refused = cli("rm", "running3");
        assertEquals(125, refused.code());
        assertTrue(refused.err().contains("\"running3\" is running") && refused.err().contains("rm -f"), refused.err());
        assertTrue(root.container("running3").isPresent());
    }

    @Test
    void theMonitorUndoesACreateThatEndsAfterItsCallersDeadline() throws Exception {
        pod("p1", false);
        qemu("p1");
        StandInGuest guest = guests.get("p1");
        try (AgentClient client = new MonitorLink(root, starter, Duration.ofSeconds(20)).connect("p1")) {
            RpcException late = assertThrows(RpcException.class, () -> client.call(MonitorMethods.ADD_CONTAINER,
                    AddContainerRequest.newBuilder().setId("slow1").setSerial("jrslow1").setImage("/x/rootfs.img")
                            .setOciConfig(ByteString.copyFromUtf8("{}")).build(), Duration.ofMillis(500)));
            assertEquals(Code.DEADLINE_EXCEEDED, late.code());
        }
        await(() -> guest.removed.contains("slow1"), "the late container's removal");
        assertTrue(guest.created.stream().anyMatch(q -> q.getId().equals("slow1")), "the guest did make it");
        await(() -> vms.get("p1").detached.contains("jrslow1"), "its disk's unplug");
    }

    @Test
    void aRemovalWaitsForACreateOfTheSameContainerInFlight() throws Exception {
        pod("p1", false);
        qemu("p1");
        StandInGuest guest = guests.get("p1");
        MonitorLink link = new MonitorLink(root, starter, Duration.ofSeconds(20));
        try (AgentClient creator = link.connect("p1"); AgentClient remover = link.connect("p1")) {
            Thread create = Thread.ofVirtual().start(() -> {
                try {
                    creator.call(MonitorMethods.ADD_CONTAINER, AddContainerRequest.newBuilder().setId("slow2").setSerial("jrslow2")
                            .setImage("/x/rootfs.img").setOciConfig(ByteString.copyFromUtf8("{}")).build(), Duration.ofSeconds(30));
                } catch (RpcException ignored) {
                    // the creator is the one `rm -f` overtakes: its outcome does not matter here
                }
            });
            Thread.sleep(300); // the create is under way in the guest
            remover.call(MonitorMethods.REMOVE_CONTAINER, RemoveContainerRequest.newBuilder().setId("slow2").setForce(true)
                    .setSerial("jrslow2").build(), Duration.ofSeconds(30));
            assertTrue(guest.created.stream().map(CreateContainerRequest::getId).toList().contains("slow2"),
                    "the removal came after the create it waited for");
            assertEquals(List.of("slow2"), guest.removed, "and removed what it made");
            create.join();
        }
    }

    @Test
    void aCreateThatTimesOutLeavesNoContainerInTheGuestThatTheHostDoesNotKnow() throws Exception {
        pod("p1", false);
        qemu("p1");
        StandInGuest guest = guests.get("p1");
        Containers containers = containers(Duration.ofMillis(500), Duration.ofSeconds(5));
        VmException e = assertThrows(VmException.class, () -> containers.create(new Containers.Spec("p1", "slow3", 0, 0, bundle,
                List.of(), false, false, -1, null)));
        assertTrue(e.getMessage().contains("slow3"), e.getMessage());
        assertEquals(1, e.getMessage().lines().count(), e.getMessage());
        // the guest finished it after the host gave up: it must be removed there, disk and all
        await(() -> guest.removed.contains("slow3"), "slow3 removed in the guest");
        assertTrue(guest.created.stream().anyMatch(q -> q.getId().equals("slow3")));
        String serial = guest.created.stream().filter(q -> q.getId().equals("slow3")).findFirst().orElseThrow().getRootfs().getSerial();
        await(() -> vms.get("p1").detached.contains(serial), "its disk unplugged");
        // the host either forgot it, or kept it where ls shows it and rm -f removes it
        if (root.container("slow3").isPresent()) {
            assertTrue(containers.list().stream().anyMatch(c -> c.path("name").asText().equals("slow3")));
            ok("rm", "-f", "slow3");
        }
        assertTrue(root.container("slow3").isEmpty());
        assertFalse(Files.exists(root.containerDir("p1", "slow3")), "no state, no image file");
    }

    @Test
    void aGuestThatDoesNotAnswerNeverMakesAContainerStopped() throws Exception {
        pod("p1", false);
        qemu("p1");
        ContainerRecord silent = container("silent1", "p1", "running");
        Containers containers = containers(Duration.ofSeconds(5), Duration.ofMillis(500));
        // ls and inspect read the record the monitor keeps: the guest is not asked
        assertEquals("running", containers.inspect(silent).path("state").asText());
        assertEquals("running", containers.list().getFirst().path("state").asText());
        // rm (no -f) asks whether it is merely created: no answer is no licence to remove it
        assertThrows(VmException.class, () -> containers.remove("silent1", false));
        assertTrue(root.container("silent1").isPresent(), "its state is kept");
        assertEquals("running", root.container("silent1").orElseThrow().lastState());
    }

    @Test
    void aFailedFirstCreateInANamedPodLeavesThePodAsItWas() throws Exception {
        pod("p2", false);
        ContainerRecord kept = new ContainerRecord("k1", "p2", bundle.toString(), "jrk1", List.of("sh"), 1, "stopped", 137);
        root.write(kept);
        Files.writeString(root.containerDir("p2", "k1").resolve("config.json"), "{}");
        Files.writeString(root.containerDir("p2", "k1").resolve("rootfs.img"), "ext4");
        byte[] podJson = Files.readAllBytes(root.podDir("p2").resolve("pod.json"));
        assertEquals("created", podState("p2"));

        Result r = cli("create", "--pod", "p2", "--name", "refused1", bundle.toString());
        assertEquals(125, r.code(), r.err());
        assertEquals(1, r.err().lines().count(), r.err());
        assertTrue(r.err().contains("refused1"), r.err());
        assertEquals(1, starts.get(), "the create booted the pod");
        assertTrue(guests.get("p2").created.stream().anyMatch(q -> q.getId().equals("k1")), "the boot made k1 again");

        assertEquals("created", podState("p2"), "pod ls tells the truth: it never ran for anyone");
        assertTrue(processes.stream().noneMatch(Process::isAlive), "no VM left running for nothing");
        assertEquals(new String(podJson, StandardCharsets.UTF_8), Files.readString(root.podDir("p2").resolve("pod.json")));
        assertEquals(kept, root.container("k1").orElseThrow(), "k1 as it was (stopped, 137)");
        assertFalse(Files.exists(root.containerDir("p2", "refused1")));
    }

    String podState(String pod) throws Exception {
        for (JsonNode p : new ObjectMapper().readTree(ok("pod", "ls", "--format", "json").out())) {
            if (p.path("name").asText().equals(pod)) {
                return p.path("state").asText();
            }
        }
        return "absent";
    }

    @Test
    void rmForceOfAContainerAKilledCreateLeftDoesNotWaitForTheBoot() throws Exception {
        // A named pod still booting (its qemu lives, no monitor answers yet) and the record of a create
        // killed before its AddContainer: only that create could have added it, so nothing is waited for.
        pod("p3", false);
        Process qemu = qemu("p3");
        container("creating1", "p3", "creating");
        Result rm = ok("rm", "-f", "creating1");
        assertTrue(rm.millis() < 5000, "rm -f took " + rm.millis() + " ms");
        assertEquals(0, starts.get(), "no monitor started for it");
        assertTrue(root.container("creating1").isEmpty());
        assertTrue(qemu.isAlive(), "the named pod goes on");

        // An anonymous pod goes with its container: ended at once, whatever its boot was doing.
        pod("anon-1", true);
        Process anonQemu = qemu("anon-1");
        container("c-anon", "anon-1", "creating");
        Result anon = ok("rm", "-f", "c-anon");
        assertTrue(anon.millis() < 5000, "rm -f took " + anon.millis() + " ms");
        assertTrue(anonQemu.waitFor(5, TimeUnit.SECONDS), "its qemu ended");
        assertFalse(Files.exists(root.podDir("anon-1")), "its pod's state went with it");
    }

    @Test
    void podRmForceEndsAMonitorStillBootingAndAQemuNoStateFileNames() throws Exception {
        // What a `pod start` killed during the boot can leave: a monitor that answers no one yet, and a
        // qemu it launched but never recorded. Another pod's qemu (a name sharing the prefix) is spared.
        pod("p4", false);
        String podDir = root.podDir("p4").toString();
        Process monitor = spawn("sh", "-c", "sleep 1000; :", "jrunc-vm", "--root", root.path().toString(), "monitor", "p4");
        Process qemu = spawn("sh", "-c", "sleep 1000; :", "qemu", "-qmp", "unix:" + podDir + "/qmp.sock,server=on,wait=off");
        Process other = spawn("sh", "-c", "sleep 1000; :", "qemu", "-qmp", "unix:" + podDir + "x/qmp.sock,server=on,wait=off");
        Thread.sleep(200); // their command lines are in place
        Files.writeString(io.jrunc.vm.qemu.SwapDisk.file(root.podDir("p4")), "scratch");
        Result rm = ok("pod", "rm", "-f", "p4");
        assertTrue(rm.millis() < 5000, "pod rm -f took " + rm.millis() + " ms");
        assertFalse(monitor.isAlive(), "the booting monitor was ended");
        assertFalse(qemu.isAlive(), "the unrecorded qemu was ended");
        assertTrue(other.isAlive(), "another pod's qemu was not touched");
        assertFalse(Files.exists(root.podDir("p4")));
    }

    @Test
    void podStopWithNoGraceAndPodRmForceEndTheVmAtOnce() throws Exception {
        pod("p5", false);
        Process qemu = qemu("p5");
        container("r5", "p5", "running");
        ok("inspect", "r5"); // a monitor serves the pod
        Result stop = ok("pod", "stop", "-t", "0", "p5");
        assertTrue(stop.millis() < 5000, "pod stop -t 0 took " + stop.millis() + " ms");
        assertFalse(qemu.isAlive());
        assertEquals("stopped", podState("p5"));
        assertEquals("stopped", root.container("r5").orElseThrow().lastState());
        assertFalse(Files.exists(root.podDir("p5").resolve("monitor.sock")), "what the monitor leaves is gone");

        Process again = qemu("p5");
        Result rm = ok("pod", "rm", "-f", "p5");
        assertTrue(rm.millis() < 5000, "pod rm -f took " + rm.millis() + " ms");
        assertFalse(again.isAlive());
        assertFalse(Files.exists(root.podDir("p5")));
    }
}
