package io.jrunc.agent.api;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrunc.agent.api.pb.v1.InspectContainerRequest;
import io.jrunc.agent.api.pb.v1.ProcessRef;
import io.jrunc.agent.api.pb.v1.WaitRequest;
import io.jrunc.agent.api.pb.v1.WaitResponse;
import io.jrunc.ttrpc.Code;
import io.jrunc.ttrpc.FrameHeader;
import io.jrunc.ttrpc.Inbound;
import io.jrunc.ttrpc.Sync;
import io.jrunc.ttrpc.TtrpcClient;
import io.jrunc.ttrpc.pb.Request;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The agent on an emulated virtio-serial port (qemu's socket chardev: one host client at a time, the
 * guest never told of a disconnect): a client that dies anywhere in a message leaves the guest's
 * stream out of step, and the next client must still be served, within a few resend intervals.
 */
class ResyncTest {
    private static final long RESYNC_BUDGET_MILLIS = 5_000;

    @TempDir
    Path dir;

    /** A first client that synchronises by hand and makes one good call, so the stream is in step. */
    private static RawPeer syncedRawClient(TestAgent agent) throws Exception {
        RawPeer peer = agent.raw();
        byte[] nonce = Sync.newNonce();
        peer.write(Sync.encode(Sync.Kind.PREAMBLE, nonce));
        Inbound.SyncIn ack = assertInstanceOf(Inbound.SyncIn.class, peer.next());
        assertEquals(Sync.Kind.ACK, ack.kind());
        assertArrayEquals(nonce, ack.nonce());
        peer.write(MalformedFramesTest.frame(1, FrameHeader.TYPE_REQUEST, 0, MalformedFramesTest.inspectRequest("first")));
        assertEquals(1, peer.nextFrame().header().streamId());
        return peer;
    }

    private static void assertNextClientIsServed(TestAgent agent) throws Exception {
        long start = System.nanoTime();
        try (AgentClient client = agent.client()) {
            assertEquals("next", client.call(AgentMethods.Containers.INSPECT,
                    InspectContainerRequest.newBuilder().setId("next").build()).getContainer().getId());
        }
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertTrue(millis < RESYNC_BUDGET_MILLIS, "resynchronising took " + millis + " ms");
    }

    /** Cut points in a 1010-byte request frame: in the header, in the data, one byte short. */
    @ParameterizedTest
    @ValueSource(ints = {1, 3, 9, 10, 11, 100, 1009})
    void aClientKilledMidFrameLeavesTheNextOneServed(int cut) throws Exception {
        try (TestAgent agent = TestAgent.onPort(dir)) {
            try (RawPeer dying = syncedRawClient(agent)) {
                Request request = Request.newBuilder().setService(AgentMethods.Containers.INSPECT.service())
                        .setMethod(AgentMethods.Containers.INSPECT.name())
                        .setPayload(InspectContainerRequest.newBuilder().setId("x".repeat(958)).build().toByteString())
                        .build();
                byte[] whole = MalformedFramesTest.frame(3, FrameHeader.TYPE_REQUEST, 0, request.toByteArray());
                assertEquals(1010, whole.length);
                dying.write(Arrays.copyOf(whole, cut));
            }
            assertNextClientIsServed(agent);
            // And the one after that, with no help from a stall this time.
            assertNextClientIsServed(agent);
        }
    }

    /** A half frame whose short remainder the next client's preamble fills: the server reads a bogus frame. */
    @Test
    void aHalfFrameCompletedByTheNextPreambleIsSurvived() throws Exception {
        try (TestAgent agent = TestAgent.onPort(dir)) {
            try (RawPeer dying = syncedRawClient(agent)) {
                dying.write(new byte[] {0, 0, 0, 12, 0, 0, 0, 3, 1, 0, 0x0a, 0x04});
            }
            assertNextClientIsServed(agent);
        }
    }

    @Test
    void aClientKilledMidPreambleLeavesTheNextOneServed() throws Exception {
        try (TestAgent agent = TestAgent.onPort(dir)) {
            try (RawPeer dying = agent.raw()) {
                dying.write(Arrays.copyOf(Sync.encode(Sync.Kind.PREAMBLE, Sync.newNonce()), 7));
            }
            assertNextClientIsServed(agent);
        }
    }

    @Test
    void junkOnThePortIsSkipped() throws Exception {
        try (TestAgent agent = TestAgent.onPort(dir)) {
            byte[] junk = new byte[64 * 1024];
            new Random(9).nextBytes(junk);
            try (RawPeer noisy = agent.raw()) {
                noisy.write(junk);
            }
            assertNextClientIsServed(agent);
        }
    }

    @Test
    void anOversizedFrameOnThePortIsAnsweredAndTheNextClientServed() throws Exception {
        try (TestAgent agent = TestAgent.onPort(dir)) {
            try (RawPeer peer = syncedRawClient(agent)) {
                ByteBuffer header = ByteBuffer.allocate(FrameHeader.SIZE);
                new FrameHeader(0x4000_0000L, 5, FrameHeader.TYPE_REQUEST, 0).encode(header);
                peer.write(header.array());
                var response = io.jrunc.ttrpc.pb.Response.parseFrom(peer.nextFrame().data());
                assertEquals(Code.RESOURCE_EXHAUSTED.value(), response.getStatus().getCode());
                // Then 1 GiB of data would follow; it never comes, and the port cannot be closed.
                peer.write(new byte[4096]);
            }
            assertNextClientIsServed(agent);
        }
    }

    /**
     * A call of a dead client that completes after the next client synchronised must not be answered
     * to the new one, though both use stream id 1: the new client's call must get its own answer.
     */
    @Test
    void answersToADeadClientNeverReachTheNextOne() throws Exception {
        try (TestAgent agent = TestAgent.onPort(dir)) {
            CountDownLatch deadGate = new CountDownLatch(1);
            CountDownLatch liveGate = new CountDownLatch(1);
            agent.waitGates.put("a", deadGate);      // the dead client's Wait answers code 1
            agent.waitGates.put("bb", liveGate);     // the new client's Wait answers code 2
            try (RawPeer dying = agent.raw()) {
                byte[] nonce = Sync.newNonce();
                dying.write(Sync.encode(Sync.Kind.PREAMBLE, nonce));
                assertInstanceOf(Inbound.SyncIn.class, dying.next());
                dying.write(MalformedFramesTest.frame(1, FrameHeader.TYPE_REQUEST, 0, Request.newBuilder()
                        .setService(AgentMethods.Processes.WAIT.service()).setMethod(AgentMethods.Processes.WAIT.name())
                        .setPayload(wait("a").toByteString()).build().toByteArray()));
            }
            try (TtrpcClient client = TtrpcClient.connect(agent.connect(), TestAgent.CLIENT_OPTIONS)) {
                CompletableFuture<WaitResponse> live = CompletableFuture.supplyAsync(() -> {
                    try {
                        return client.call(AgentMethods.Processes.WAIT, wait("bb"));   // stream id 1 again
                    } catch (Exception e) {
                        throw new AssertionError(e);
                    }
                });
                deadGate.countDown();
                Thread.sleep(300);   // the dead client's answer is ready well before the live one's
                liveGate.countDown();
                assertEquals(2, live.get(10, TimeUnit.SECONDS).getStatus().getCode());
            }
        }
    }

    @Test
    void aClientGivesUpWhenNoAgentAnswers() throws Exception {
        // A port with nothing behind it: the emulator alone, no server reading.
        try (ChardevEmulator chardev = new ChardevEmulator(dir.resolve("silent.sock"))) {
            var options = TestAgent.CLIENT_OPTIONS.withSync(Duration.ofMillis(500), Duration.ofMillis(100));
            var e = org.junit.jupiter.api.Assertions.assertThrows(io.jrunc.ttrpc.RpcException.class,
                    () -> TtrpcClient.connect(chardev.connect(), options));
            assertEquals(Code.UNAVAILABLE, e.code());
            assertTrue(e.getMessage().contains("no sync acknowledgement"), e.getMessage());
        }
    }

    private static WaitRequest wait(String container) {
        return WaitRequest.newBuilder().setProcess(ProcessRef.newBuilder().setContainerId(container)).build();
    }
}
