package io.jrunc.agent.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrunc.agent.api.pb.v1.InspectContainerRequest;
import io.jrunc.ttrpc.Code;
import io.jrunc.ttrpc.Frame;
import io.jrunc.ttrpc.FrameHeader;
import io.jrunc.ttrpc.Inbound;
import io.jrunc.ttrpc.pb.Request;
import io.jrunc.ttrpc.pb.Response;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a server on a socket does with frames it cannot serve: answers a status on the frame's stream
 * when the framing is intact and goes on; closes the connection when the framing is lost (junk, an
 * oversized length, after answering it); and serves the next client either way.
 */
class MalformedFramesTest {
    @TempDir
    Path dir;

    static byte[] frame(int streamId, int type, int flags, byte[] data) {
        ByteBuffer buf = ByteBuffer.allocate(FrameHeader.SIZE + data.length);
        new FrameHeader(data.length, streamId, type, flags).encode(buf);
        return buf.put(data).array();
    }

    static byte[] inspectRequest(String id) {
        return Request.newBuilder().setService(AgentMethods.Containers.INSPECT.service())
                .setMethod(AgentMethods.Containers.INSPECT.name())
                .setPayload(InspectContainerRequest.newBuilder().setId(id).build().toByteString())
                .build().toByteArray();
    }

    private static Response response(RawPeer peer, int streamId) throws Exception {
        Frame frame = peer.nextFrame();
        assertEquals(streamId, frame.header().streamId());
        assertEquals(FrameHeader.TYPE_RESPONSE, frame.header().type());
        return Response.parseFrom(frame.data());
    }

    private static void assertStatus(Response response, Code code, String fragment) {
        assertEquals(code.value(), response.getStatus().getCode(), response.toString());
        assertTrue(response.getStatus().getMessage().contains(fragment), response.getStatus().getMessage());
    }

    /** The connection still serves a good request afterwards. */
    private static void assertStillServes(RawPeer peer, int streamId) throws Exception {
        peer.write(frame(streamId, FrameHeader.TYPE_REQUEST, 0, inspectRequest("alive")));
        Response ok = response(peer, streamId);
        assertEquals(Code.OK.value(), ok.getStatus().getCode());
    }

    @Test
    void framesWithIntactFramingAreAnsweredOnTheirStream() throws Exception {
        try (TestAgent agent = TestAgent.onSocket(dir); RawPeer peer = agent.raw()) {
            peer.write(frame(1, FrameHeader.TYPE_REQUEST, 0, new byte[] {(byte) 0xff, 0x01, 0x02}));
            assertStatus(response(peer, 1), Code.INVALID_ARGUMENT, "bad request");

            Request badPayload = Request.newBuilder().setService(AgentMethods.Containers.INSPECT.service())
                    .setMethod(AgentMethods.Containers.INSPECT.name())
                    .setPayload(com.google.protobuf.ByteString.copyFrom(new byte[] {0x0a, 0x7f})).build();
            peer.write(frame(3, FrameHeader.TYPE_REQUEST, 0, badPayload.toByteArray()));
            assertStatus(response(peer, 3), Code.INVALID_ARGUMENT, "bad jrunc.agent.v1.Containers/Inspect request");

            peer.write(frame(5, 7, 0, new byte[] {1, 2, 3}));
            assertStatus(response(peer, 5), Code.INVALID_ARGUMENT, "unknown message type 7");

            peer.write(frame(6, FrameHeader.TYPE_REQUEST, 0, inspectRequest("even")));
            assertStatus(response(peer, 6), Code.INVALID_ARGUMENT, "is even");

            peer.write(frame(7, FrameHeader.TYPE_REQUEST, FrameHeader.FLAG_REMOTE_OPEN, inspectRequest("stream")));
            assertStatus(response(peer, 7), Code.UNIMPLEMENTED, "streaming requests");

            peer.write(frame(9, FrameHeader.TYPE_DATA, FrameHeader.FLAG_REMOTE_CLOSED, new byte[] {42}));
            assertStatus(response(peer, 9), Code.UNIMPLEMENTED, "data frames");

            peer.write(frame(11, FrameHeader.TYPE_RESPONSE, 0, new byte[0]));
            assertStatus(response(peer, 11), Code.INVALID_ARGUMENT, "a response frame from a client");

            assertStillServes(peer, 13);
        }
    }

    @Test
    void anOversizedFrameIsAnsweredThenTheConnectionClosed() throws Exception {
        try (TestAgent agent = TestAgent.onSocket(dir)) {
            // (A length from 0xff000000 up starts with the sync lead byte: it is junk, closed unanswered.)
            for (long length : new long[] {FrameHeader.MAX_DATA_LENGTH + 1L, 0xFEFF_FFFFL}) {
                try (RawPeer peer = agent.raw()) {
                    // The header alone, announcing up to 4 GiB: the server never waits for that data.
                    ByteBuffer header = ByteBuffer.allocate(FrameHeader.SIZE);
                    new FrameHeader(length, 21, FrameHeader.TYPE_REQUEST, 0).encode(header);
                    peer.write(header.array());
                    assertStatus(response(peer, 21), Code.RESOURCE_EXHAUSTED, "exceeds the maximum message size of 4194304");
                    assertInstanceOf(Inbound.End.class, peer.next());
                }
            }
            try (RawPeer next = agent.raw()) {
                assertStillServes(next, 1);
            }
        }
    }

    @Test
    void junkClosesTheConnectionAndTheNextClientIsServed() throws Exception {
        try (TestAgent agent = TestAgent.onSocket(dir)) {
            try (RawPeer peer = agent.raw()) {
                peer.write(new byte[] {(byte) 0xff, 'n', 'o', 't', ' ', 'a', ' ', 's', 'y', 'n', 'c', '!', '!', '!', '!', '!'});
                assertInstanceOf(Inbound.End.class, peer.next());
            }
            try (RawPeer peer = agent.raw()) {
                // A client that sends half a frame and goes away.
                peer.write(new byte[] {0, 0, 1, 0, 0, 0, 0, 1, 1});
            }
            try (AgentClient client = agent.client()) {
                assertEquals("after", client.call(AgentMethods.Containers.INSPECT,
                        InspectContainerRequest.newBuilder().setId("after").build()).getContainer().getId());
            }
        }
    }
}
