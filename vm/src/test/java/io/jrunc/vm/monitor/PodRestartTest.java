package io.jrunc.vm.monitor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrunc.agent.api.pb.v1.CreateContainerRequest;
import io.jrunc.vm.cli.Main;
import io.jrunc.vm.state.ContainerRecord;
import io.jrunc.vm.state.PodRecord;
import io.jrunc.vm.state.StateRoot;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A stopped pod's containers in its next VM: the CLI (in-process) boots the pod through its monitor
 * starter, here a monitor on the stand-in guest (no VM boots on the build host; PodVmTest does this
 * with a real VM). The pod is stopped until the starter runs, which records this JVM as its "qemu",
 * as the real monitor records the qemu it launched. (The stand-in lists c1 as running: these containers
 * are named otherwise.)
 */
class PodRestartTest {
    @TempDir
    Path dir;
    StateRoot root;
    StandInGuest guest;
    StandInVm vm;
    PodMonitor monitor;

    @BeforeEach
    void setUp() throws Exception {
        root = new StateRoot(dir);
        Path kernel = Files.writeString(dir.resolve("vmlinuz"), "k");
        Path initrd = Files.writeString(dir.resolve("initrd.cpio"), "i");
        root.write(PodRecord.created("p1", false, PodRecord.Config.of(1, 256L << 20, "podhost")
                .withImage(kernel.toString(), initrd.toString())));
        for (String c : List.of("k1", "k2")) {
            root.write(new ContainerRecord(c, "p1", "/bundle", "jr-" + c, List.of("sleep", "9"), 1, "stopped", 137));
            Files.writeString(root.containerDir("p1", c).resolve("config.json"), "{\"built\": \"" + c + "\"}");
            Files.writeString(root.containerDir("p1", c).resolve("rootfs.img"), "ext4");
        }
        guest = new StandInGuest(root.podDir("p1").resolve("agent.sock"));
    }

    @AfterEach
    void tearDown() throws Exception {
        if (monitor != null) {
            monitor.close();
        }
        guest.close();
    }

    int run(String... args) {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        String[] all = Stream.concat(Stream.of("--root", dir.toString()), Stream.of(args)).toArray(String[]::new);
        int code = Main.run(all, new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8), (r, pod) -> {
                    try {
                        ProcessHandle self = ProcessHandle.current();
                        PodRecord p = root.pod(pod).orElseThrow();
                        root.write(p.withVm(new PodRecord.Vm(self.pid(),
                                self.info().startInstant().orElseThrow().toEpochMilli(), "sha256:x")));
                        vm = new StandInVm(root.podDir(pod).resolve("agent.sock"));
                        monitor = PodMonitor.start(root, root.pod(pod).orElseThrow(), vm, MonitorTest.FAST);
                    } catch (Exception e) {
                        throw new java.io.IOException(e);
                    }
                    return null;
                });
        assertEquals(0, code, err.toString(StandardCharsets.UTF_8));
        return code;
    }

    @Test
    void podStartCreatesTheKeptContainersAgainFromTheirSpecAndImageAndStartsThem() throws Exception {
        run("pod", "start", "p1");
        assertEquals(List.of("k1", "k2"), guest.created.stream().map(CreateContainerRequest::getId).sorted().toList());
        for (CreateContainerRequest q : guest.created) {
            assertEquals("jr-" + q.getId(), q.getRootfs().getSerial(), "the same serial");
            assertEquals("{\"built\": \"" + q.getId() + "\"}", q.getOciConfig().toStringUtf8(), "the recorded spec, unchanged");
        }
        assertEquals(List.of("jr-k1=" + root.containerDir("p1", "k1").resolve("rootfs.img"),
                "jr-k2=" + root.containerDir("p1", "k2").resolve("rootfs.img")), vm.attached.stream().sorted().toList());
        assertEquals(List.of("k1", "k2"), guest.started.stream().sorted().toList());
        assertEquals("running", root.container("k1").orElseThrow().lastState());
        assertEquals("running", root.container("k2").orElseThrow().lastState());

        run("pod", "start", "p1");
        assertEquals(2, guest.created.size(), "a running pod is left as it is");
    }

    @Test
    void startOfOneContainerBootsItsPodAndStartsItAlone() throws Exception {
        run("start", "k2");
        assertEquals(List.of("k1", "k2"), guest.created.stream().map(CreateContainerRequest::getId).sorted().toList());
        assertEquals(List.of("k2"), guest.started);
        assertEquals("created", root.container("k1").orElseThrow().lastState(), "k1 is startable");
        assertEquals("running", root.container("k2").orElseThrow().lastState());
        assertTrue(Files.exists(root.containerDir("p1", "k1").resolve("rootfs.img")));
    }

    @Test
    void aContainerTheGuestAlreadyHasIsNotCreatedTwice() throws Exception {
        // a call that raced this one to boot the pod made c1 already (the stand-in lists it): its disk is
        // plugged, and plugging it again would fail
        root.write(new ContainerRecord("c1", "p1", "/bundle", "jr-c1", List.of("sleep", "9"), 1, "stopped", 0));
        Files.writeString(root.containerDir("p1", "c1").resolve("config.json"), "{}");
        run("pod", "start", "p1");
        assertEquals(List.of("k1", "k2"), guest.created.stream().map(CreateContainerRequest::getId).sorted().toList());
        assertTrue(vm.attached.stream().noneMatch(a -> a.startsWith("jr-c1=")), vm.attached.toString());
    }

    @Test
    void aStoppedContainerOfARunningPodIsCreatedAgainOnItsOwnDisksBeforeItStarts() throws Exception {
        // a writable container: its layer is attached read-write with the image, and kept plugged
        root.write(new ContainerRecord("stopped1", "p1", "/bundle", "jr-s1", List.of("sleep", "9"), 1, "stopped", 137));
        Path dir = root.containerDir("p1", "stopped1");
        Files.writeString(dir.resolve("config.json"), "{\"built\": \"stopped1\"}");
        Files.writeString(dir.resolve("rootfs.img"), "ext4");
        Files.writeString(dir.resolve("layer.img"), "ext4, writable");
        run("pod", "start", "p1");
        assertTrue(vm.attached.contains("jl-s1=rw:" + dir.resolve("layer.img")), vm.attached.toString());
        int creates = (int) guest.created.stream().filter(q -> q.getId().equals("stopped1")).count();

        run("start", "stopped1"); // the stand-in reports it stopped: it is made again in the guest first
        List<CreateContainerRequest> again = guest.created.stream().filter(q -> q.getId().equals("stopped1")).toList();
        assertEquals(creates + 1, again.size(), "created again");
        CreateContainerRequest last = again.getLast();
        assertEquals("jr-s1", last.getRootfs().getSerial());
        assertEquals("jl-s1", last.getLayer().getSerial(), "on the same layer: its writes are kept");
        assertEquals("{\"built\": \"stopped1\"}", last.getOciConfig().toStringUtf8());
        assertTrue(vm.detached.isEmpty(), "no disk unplugged: " + vm.detached);
        assertEquals(1, vm.attached.stream().filter(a -> a.startsWith("jl-s1=")).count(), "nor plugged twice: " + vm.attached);
        assertEquals("stopped1", guest.started.getLast());
        assertEquals("running", root.container("stopped1").orElseThrow().lastState());
    }
}
