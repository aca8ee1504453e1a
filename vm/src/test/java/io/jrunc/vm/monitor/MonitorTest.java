package io.jrunc.vm.monitor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import io.jrunc.agent.api.AgentClient;
import io.jrunc.agent.api.AgentMethods;
import io.jrunc.agent.api.AgentProtocol;
import io.jrunc.agent.api.pb.v1.InspectContainerRequest;
import io.jrunc.ttrpc.ClientOptions;
import io.jrunc.ttrpc.Code;
import io.jrunc.ttrpc.Dispatcher;
import io.jrunc.ttrpc.RpcException;
import io.jrunc.ttrpc.ServerOptions;
import io.jrunc.ttrpc.TtrpcServer;
import io.jrunc.vm.monitor.pb.AddContainerRequest;
import io.jrunc.vm.monitor.pb.RemoveContainerRequest;
import io.jrunc.vm.monitor.pb.Share;
import io.jrunc.vm.monitor.pb.StatusRequest;
import io.jrunc.vm.monitor.pb.StatusResponse;
import io.jrunc.vm.state.PodRecord;
import io.jrunc.vm.state.StateRoot;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The pod monitor against a stand-in guest (StandInGuest: the protocol's real port server behind an
 * emulated qemu chardev, since no VM boots on the build host) and a stand-in VM without qemu
 * (StandInVm; QMP itself is QmpClientTest's). Checks the pass-through, the monitor's own service, the
 * output log, and the reconnect: a monitor killed mid-frame is replaced by the next CLI call, and the
 * new one is served after the protocol resynchronises.
 */
class MonitorTest {
    static final ClientOptions FAST = ClientOptions.DEFAULTS.withSync(Duration.ofSeconds(10), Duration.ofMillis(400))
            .withCallTimeout(Duration.ofSeconds(10));

    @TempDir
    Path dir;
    StateRoot root;
    PodRecord pod;
    StandInGuest guest;
    StandInVm vm;
    PodMonitor monitor;

    @BeforeEach
    void setUp() throws Exception {
        root = new StateRoot(dir);
        pod = new PodRecord("p1", false, 1, new PodRecord.Config(1, 256L << 20, "podhost", List.of("10.0.0.1"),
                List.of("db:10.0.0.2"), Map.of("net.ipv4.ip_forward", "1"), null, null, 0, null), new PodRecord.Vm(0, 0, "sha256:booted"));
        root.write(pod);
        // c1, which the stand-in guest lists as running, has the directory its create made (its logs go there)
        Files.createDirectories(root.containerDir("p1", "c1"));
        guest = new StandInGuest(root.podDir("p1").resolve("agent.sock"));
        vm = new StandInVm(root.podDir("p1").resolve("agent.sock"));
    }

    @AfterEach
    void tearDown() throws Exception {
        if (monitor != null) {
            monitor.close();
        }
        guest.close();
    }

    MonitorLink link(AtomicInteger starts) {
        return new MonitorLink(root, (r, p) -> {
            starts.incrementAndGet();
            try {
                monitor = PodMonitor.start(root, pod, vm, FAST);
            } catch (Exception e) {
                throw new java.io.IOException(e);
            }
            return null;
        }, Duration.ofSeconds(20));
    }

    @Test
    void aPodWithASwapAreaHasItEnabledOnceBeforeAnyContainer() throws Exception {
        pod = new PodRecord(pod.name(), false, pod.createdAt(), pod.config().withSwap(256L << 20), pod.vm());
        root.write(pod);
        monitor = PodMonitor.start(root, pod, vm, FAST);
        try (AgentClient client = link(new AtomicInteger()).connect("p1")) {
            client.call(MonitorMethods.ADD_CONTAINER, AddContainerRequest.newBuilder().setId("c2")
                    .setSerial("jr00aa").setImage("/x/rootfs.img").setOciConfig(ByteString.copyFromUtf8("{}")).build());
        }
        assertEquals(List.of("jrunc-swap"), guest.swaps);
        assertEquals(List.of("Configure", "AddSwap", "Create"), guest.calls);
    }

    @Test
    void aPodWithoutASwapAreaNeverAsksForOne() throws Exception {
        monitor = PodMonitor.start(root, pod, vm, FAST);
        assertEquals(List.of(), guest.swaps);
    }

    @Test
    void aSharingLinkGivesOneConnectionToAllItsUsersUntilItCloses() throws Exception {
        monitor = PodMonitor.start(root, pod, vm, FAST);
        StatusRequest status = StatusRequest.getDefaultInstance();
        try (MonitorLink link = MonitorLink.sharing(root, (r, p) -> {
            throw new java.io.IOException("a live monitor is there");
        }, Duration.ofSeconds(20))) {
            AgentClient first = link.connect("p1");
            AgentClient second = link.connect("p1");
            first.close();
            assertTrue(second.isOpen(), "closing a lease leaves the connection open");
            second.call(MonitorMethods.STATUS, status);
            link.close();
            assertFalse(second.isOpen(), "the link's close ends the connection");
            AgentClient third = link.connect("p1");
            assertTrue(third.isOpen(), "a connection that ended is replaced");
            third.call(MonitorMethods.STATUS, status);
        }
        AgentClient own = link(new AtomicInteger()).connect("p1");
        AgentClient other = link(new AtomicInteger()).connect("p1");
        own.close();
        assertFalse(own.isOpen(), "a link that does not share hands out connections of their own");
        assertTrue(other.isOpen());
        other.close();
    }

    @Test
    void configuresThePodAndPassesAgentCallsThrough() throws Exception {
        monitor = PodMonitor.start(root, pod, vm, FAST);
        assertEquals(1, guest.configured.size());
        var configure = guest.configured.getFirst();
        assertEquals("podhost", configure.getHostname());
        assertEquals(List.of("10.0.0.1"), configure.getDns().getNameserversList());
        assertEquals("10.0.0.2", configure.getHosts(0).getIp());
        assertEquals("db", configure.getHosts(0).getNames(0));
        assertEquals("net.ipv4.ip_forward=1", configure.getSysctls(0).getName() + "=" + configure.getSysctls(0).getValue());

        AtomicInteger starts = new AtomicInteger();
        try (AgentClient client = link(starts).connect("p1")) {
            assertEquals(0, starts.get(), "a live monitor is used, not replaced");
            assertEquals("stand-in", client.agentVersion().getAgent(), "Version passes through");
            assertEquals("c9", client.call(AgentMethods.Containers.INSPECT, InspectContainerRequest.newBuilder().setId("c9").build())
                    .getContainer().getId());
            RpcException missing = assertThrows(RpcException.class, () -> client.call(AgentMethods.Containers.INSPECT,
                    InspectContainerRequest.newBuilder().setId("missing1").build()));
            assertEquals(Code.NOT_FOUND, missing.code(), "the agent's code passes through");

            StatusResponse status = client.call(MonitorMethods.STATUS, StatusRequest.getDefaultInstance());
            assertEquals("running", status.getVmStatus());
            assertEquals("sha256:booted", status.getBootedDigest());
            assertEquals(AgentProtocol.MAJOR, status.getAgentMajor());

            int pid = client.call(MonitorMethods.ADD_CONTAINER, AddContainerRequest.newBuilder().setId("c2")
                    .setSerial("jr00aa").setImage("/x/rootfs.img").setOciConfig(ByteString.copyFromUtf8("{}")).build()).getPid();
            assertEquals(42, pid);
            assertEquals(List.of("jr00aa=/x/rootfs.img"), vm.attached);
            assertEquals("jr00aa", guest.created.getFirst().getRootfs().getSerial());
            assertEquals("ext4", guest.created.getFirst().getRootfs().getFsType());

            client.call(MonitorMethods.REMOVE_CONTAINER, RemoveContainerRequest.newBuilder().setId("c2").setForce(true).setSerial("jr00aa").build());
            assertEquals(List.of("c2"), guest.removed);
            assertEquals(List.of("jr00aa"), vm.detached, "rm unplugs the disk");
        }
    }

    @Test
    void aCallPassedThroughCarriesItsCallersDeadlineToTheAgent() throws Exception {
        monitor = PodMonitor.start(root, pod, vm, FAST);
        try (AgentClient client = link(new AtomicInteger()).connect("p1")) {
            RpcException late = assertThrows(RpcException.class, () -> client.call(AgentMethods.Containers.INSPECT,
                    InspectContainerRequest.newBuilder().setId("silent1").build(), Duration.ofSeconds(1)));
            assertEquals(Code.DEADLINE_EXCEEDED, late.code(), late.getMessage());
            client.call(AgentMethods.Containers.INSPECT, InspectContainerRequest.newBuilder().setId("c1").build(), Duration.ZERO);
        }
        // the agent saw the caller's second (less what the way took), not an endless call from the
        // monitor; a call with no deadline stays one
        Duration left = guest.inspectDeadlines.getFirst().orElseThrow();
        assertTrue(left.compareTo(Duration.ofSeconds(1)) <= 0 && !left.isZero(), left.toString());
        assertTrue(guest.inspectDeadlines.get(1).isEmpty(), guest.inspectDeadlines.toString());
    }

    @Test
    void sharedDirectoriesArePluggedBeforeTheDiskAndUnpluggedWithTheContainerOrAFailedCreate() throws Exception {
        monitor = PodMonitor.start(root, pod, vm, FAST);
        try (AgentClient client = link(new AtomicInteger()).connect("p1")) {
            client.call(MonitorMethods.ADD_CONTAINER, AddContainerRequest.newBuilder().setId("c2").setSerial("jr00aa")
                    .setImage("/x/rootfs.img").setOciConfig(ByteString.copyFromUtf8("{}"))
                    .addShares(Share.newBuilder().setTag("fs000000000001").setHostPath("/srv/a"))
                    .addShares(Share.newBuilder().setTag("fs000000000002").setHostPath("/srv/b")).build());
            assertEquals(List.of("fs000000000001", "fs000000000002"), vm.sharesAttached);
            assertEquals(List.of("share fs000000000001", "share fs000000000002", "disk jr00aa"), vm.plugOrder);
            assertEquals(List.of(), vm.sharesDetached);

            client.call(MonitorMethods.REMOVE_CONTAINER, RemoveContainerRequest.newBuilder().setId("c2").setForce(true)
                    .setSerial("jr00aa").addShareTags("fs000000000001").addShareTags("fs000000000002").build());
            assertEquals(List.of("fs000000000001", "fs000000000002"), vm.sharesDetached, "rm unplugs the shares");

            // the guest refuses the create: its disk and its shares are unplugged again
            RpcException refused = assertThrows(RpcException.class, () -> client.call(MonitorMethods.ADD_CONTAINER,
                    AddContainerRequest.newBuilder().setId("refused1").setSerial("jr00bb").setImage("/x/rootfs.img")
                            .setOciConfig(ByteString.copyFromUtf8("{}"))
                            .addShares(Share.newBuilder().setTag("fs000000000003").setHostPath("/srv/c")).build()));
            assertEquals(Code.INVALID_ARGUMENT, refused.code());
            assertEquals(List.of("fs000000000001", "fs000000000002", "fs000000000003"), vm.sharesDetached);
            assertTrue(vm.detached.contains("jr00bb"));
        }
    }

    @Test
    void aRootSharedByVirtioFsPlugsNoDiskAndIsTheGuestsRootAndItsShareGoesWithTheContainer() throws Exception {
        monitor = PodMonitor.start(root, pod, vm, FAST);
        try (AgentClient client = link(new AtomicInteger()).connect("p1")) {
            client.call(MonitorMethods.ADD_CONTAINER, AddContainerRequest.newBuilder().setId("c2")
                    .setOciConfig(ByteString.copyFromUtf8("{}")).setRootShare("fs0000000000aa")
                    .addShares(Share.newBuilder().setTag("fs0000000000aa").setHostPath("/srv/bundle/rootfs")).build());
            assertEquals(List.of("share fs0000000000aa"), vm.plugOrder, "the share alone: no disk");
            assertEquals(List.of(), vm.attached);
            assertEquals("fs0000000000aa", guest.created.getFirst().getRootfs().getSerial());
            assertEquals("virtiofs", guest.created.getFirst().getRootfs().getFsType());
            assertFalse(guest.created.getFirst().hasLayer());

            client.call(MonitorMethods.REMOVE_CONTAINER, RemoveContainerRequest.newBuilder().setId("c2").setForce(true)
                    .addShareTags("fs0000000000aa").build());
            assertEquals(List.of("fs0000000000aa"), vm.sharesDetached);
            assertEquals(List.of(), vm.detached, "no disk to unplug");
        }
    }

    @Test
    void copiesARunningContainersOutputToItsLog() throws Exception {
        monitor = PodMonitor.start(root, pod, vm, FAST);
        Path log = root.containerDir("p1", "c1").resolve("stdout.log");
        Path errors = root.containerDir("p1", "c1").resolve("stderr.log");
        // each stream has its own copy, which makes its file: wait for both, not only stdout's
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (!(Files.exists(log) && Files.readString(log).equals("hello\n") && Files.exists(errors))
                && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertEquals("hello\n", Files.readString(log));
        assertTrue(Files.exists(errors));
    }

    @Test
    void theLogCopyOfAContainerWhoseDirectoryWentDoesNotMakeItAgain() throws Exception {
        // rm removes the directory; a copy that begins after that must not leave one no record names
        Files.delete(root.containerDir("p1", "c1"));
        monitor = PodMonitor.start(root, pod, vm, FAST);
        Thread.sleep(500); // the stand-in's "hello" for c1 is read within milliseconds
        assertFalse(Files.exists(root.containerDir("p1", "c1")));
    }

    @Test
    void aMonitorKilledMidFrameIsReplacedByTheNextCall() throws Exception {
        monitor = PodMonitor.start(root, pod, vm, FAST);
        PodMonitor first = monitor;
        // The monitor dies half way through writing a request to the agent: its socket is gone, and
        // the guest's port holds half a frame.
        vm.dieMidFrame();
        first.close();
        monitor = null;
        assertFalse(Files.exists(PodMonitor.socket(root, "p1")));

        AtomicInteger starts = new AtomicInteger();
        long t0 = System.nanoTime();
        try (AgentClient client = link(starts).connect("p1")) {
            assertEquals(1, starts.get(), "the next call started a new monitor");
            assertEquals("c3", client.call(AgentMethods.Containers.INSPECT, InspectContainerRequest.newBuilder().setId("c3").build())
                    .getContainer().getId());
        }
        assertTrue(System.nanoTime() - t0 < Duration.ofSeconds(5).toNanos(), "resynchronised within 5 s");
        assertEquals(2, guest.configured.size(), "the new monitor configured the pod again (idempotent)");
    }

    @Test
    void aQemuThatOutlivesQuitIsKilledAndItsExitReported() throws Exception {
        vm.deafToQuit = true;
        monitor = PodMonitor.start(root, pod, vm, FAST);
        long t0 = System.nanoTime();
        try (AgentClient client = link(new AtomicInteger()).connect("p1")) {
            // the stand-in guest never powers off: the stop timeout (1 s) runs out, then QMP quit, which
            // this qemu ignores, then SIGKILL once the quit's grace (bounded by the stop timeout) is over
            var answer = client.call(MonitorMethods.SHUTDOWN, io.jrunc.vm.monitor.pb.ShutdownRequest.newBuilder()
                    .setTimeoutNanos(Duration.ofSeconds(1).toNanos()).build());
            assertEquals(137, answer.getQemuExit(), "the killed qemu's exit is reported");
        }
        assertEquals(List.of("quit", "kill"), vm.signals);
        assertFalse(vm.isAlive());
        assertTrue(System.nanoTime() - t0 < Duration.ofSeconds(8).toNanos(), "within the stop timeout and grace");
    }

    @Test
    void aFailedStatusQueryIsAnErrorNotAGonePod() throws Exception {
        // A monitor that answers, but says it cannot reach qemu.
        Dispatcher d = new Dispatcher().register(AgentMethods.VERSION, AgentProtocol.versionHandler("broken"))
                .register(MonitorMethods.STATUS, (ctx, q) -> {
                    throw new RpcException(Code.UNAVAILABLE, "qemu does not answer on QMP");
                });
        try (TtrpcServer server = new TtrpcServer(d, ServerOptions.DEFAULTS);
             ServerSocketChannel listener = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            listener.bind(UnixDomainSocketAddress.of(PodMonitor.socket(root, "p1")));
            Thread.ofVirtual().start(() -> {
                try {
                    server.serveConnections(listener);
                } catch (java.io.IOException ignored) {
                    // closed by the test
                }
            });
            AtomicInteger starts = new AtomicInteger();
            // the connect asks the monitor (Version) and not qemu; the Status call then fails as itself
            try (AgentClient client = link(starts).connect("p1")) {
                RpcException e = assertThrows(RpcException.class,
                        () -> client.call(MonitorMethods.STATUS, StatusRequest.getDefaultInstance()));
                assertTrue(e.getMessage().contains("qemu does not answer"), e.getMessage());
            }
            assertEquals(0, starts.get(), "no second monitor started beside one that answers");
            assertTrue(root.pod("p1").isPresent(), "the pod is not taken for gone");
        }
    }
}
