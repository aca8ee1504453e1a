package io.jrunc.agent.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import io.jrunc.agent.api.pb.v1.InspectContainerRequest;
import io.jrunc.agent.api.pb.v1.InspectContainerResponse;
import io.jrunc.ttrpc.ByteStream;
import io.jrunc.ttrpc.Frame;
import io.jrunc.ttrpc.FrameHeader;
import io.jrunc.ttrpc.Inbound;
import io.jrunc.ttrpc.Sync;
import io.jrunc.ttrpc.TtrpcClient;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Bytes built by hand from containerd/ttrpc's PROTOCOL.md and request.proto, with no help from this
 * code's encoder or from protobuf-java, sent by a peer that knows nothing of the sync preamble (as a
 * Go or Rust ttRPC client would), and the answers compared byte for byte. This pins the wire format:
 * any other ttRPC implementation that sends these bytes gets these answers.
 */
class WireInteropTest {
    @TempDir
    Path dir;

    @Test
    void aPlainTtrpcClientCallsVersionGet() throws Exception {
        try (TestAgent agent = TestAgent.onSocket(dir); RawPeer peer = agent.raw()) {
            peer.writeHex(
                    // header: data length 40, stream id 1, type 1 (request), flags 0
                    "00000028 00000001 01 00"
                    // Request.service (1, bytes) = "jrunc.agent.Version"
                    + "0a13 6a72756e632e6167656e742e56657273696f6e"
                    // Request.method (2, bytes) = "Get"; Request.payload (3) empty, so absent
                    + "1203 476574"
                    // Request.timeout_nano (4, varint) = 1 s
                    + "20 8094ebdc03"
                    // Request.metadata (5) = KeyValue{key (1) = "k", value (2) = "v"}
                    + "2a06 0a016b 120176");
            assertEquals(
                    // header: data length 20, stream id 1, type 2 (response), flags 0
                    "00000014" + "00000001" + "02" + "00"
                    // Response.status (1) = Status{} (code 0: success)
                    + "0a00"
                    // Response.payload (2) = GetVersionResponse{major (1) = 1, minor (2) = 8,
                    // agent (3) = "test-agent"}
                    + "1210" + "0801" + "1008" + "1a0a" + "746573742d6167656e74",
                    RawPeer.HEX.formatHex(peer.readExactly(10 + 20)));
        }
    }

    @Test
    void anUnknownServiceIsAnsweredWithAStatusOnItsStream() throws Exception {
        try (TestAgent agent = TestAgent.onSocket(dir); RawPeer peer = agent.raw()) {
            // Request{service = "nope", method = "X"} on stream 3.
            peer.writeHex("00000009 00000003 01 00" + "0a04 6e6f7065" + "1201 58");
            assertEquals(
                    "0000001a" + "00000003" + "02" + "00"
                    // Response.status = Status{code (1) = 12 (UNIMPLEMENTED),
                    // message (2) = "unknown service nope"}, no payload
                    + "0a18" + "080c" + "1214" + "756e6b6e6f776e2073657276696365206e6f7065",
                    RawPeer.HEX.formatHex(peer.readExactly(10 + 26)));
        }
    }

    /**
     * The client side, against a hand-driven server: the preamble first, then requests on odd stream
     * ids 1, 3, ..., and answers matched by stream id even when they come back in the other order.
     */
    @Test
    void theClientSynchronisesThenUsesOddStreamIdsAndMatchesAnswers() throws Exception {
        Path socket = dir.resolve("hand.sock");
        try (ServerSocketChannel listener = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            listener.bind(UnixDomainSocketAddress.of(socket));
            CompletableFuture<TtrpcClient> connecting = CompletableFuture.supplyAsync(() -> {
                try {
                    return TtrpcClient.connect(ByteStream.of(SocketChannel.open(UnixDomainSocketAddress.of(socket))),
                            TestAgent.CLIENT_OPTIONS);
                } catch (Exception e) {
                    throw new AssertionError(e);
                }
            });
            try (RawPeer server = new RawPeer(listener.accept())) {
                Inbound.SyncIn preamble = assertInstanceOf(Inbound.SyncIn.class, server.next());
                assertEquals(Sync.Kind.PREAMBLE, preamble.kind());
                server.write(Sync.encode(Sync.Kind.ACK, preamble.nonce()));
                try (TtrpcClient client = connecting.get(10, TimeUnit.SECONDS)) {
                    CompletableFuture<String> first = inspect(client, "one");
                    Frame request1 = server.nextFrame();
                    CompletableFuture<String> second = inspect(client, "two");
                    Frame request3 = server.nextFrame();
                    assertEquals(1, request1.header().streamId());
                    assertEquals(3, request3.header().streamId());
                    assertEquals(FrameHeader.TYPE_REQUEST, request3.header().type());
                    assertEquals(0, request3.header().flags());
                    // Answer 3 then 1, hand-encoded: Response{status: {}, payload: InspectContainerResponse{
                    // container: ContainerInfo{id}}}.
                    server.writeHex("0000000b 00000003 02 00" + "0a00 1207 0a05 0a03 " + RawPeer.HEX.formatHex("333".getBytes()));
                    server.writeHex("0000000b 00000001 02 00" + "0a00 1207 0a05 0a03 " + RawPeer.HEX.formatHex("111".getBytes()));
                    assertEquals("111", first.get(10, TimeUnit.SECONDS));
                    assertEquals("333", second.get(10, TimeUnit.SECONDS));
                }
            }
        }
    }

    private static CompletableFuture<String> inspect(TtrpcClient client, String id) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                InspectContainerResponse response = client.call(AgentMethods.Containers.INSPECT,
                        InspectContainerRequest.newBuilder().setId(id).build());
                return response.getContainer().getId();
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        });
    }
}
