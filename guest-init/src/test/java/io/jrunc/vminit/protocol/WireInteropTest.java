package io.jrunc.vminit.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
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
                    // header: data length 18, stream id 1, type 2 (response), flags 0
                    "00000012" + "00000001" + "02" + "00"
                    // Response.status (1) = Status{} (code 0: success)
                    + "0a00"
                    // Response.payload (2) = GetVersionResponse{major (1) = 1, minor (2) = 0 (absent),
                    // agent (3) = "test-agent"}
                    + "120e" + "0801" + "1a0a" + "746573742d6167656e74",
                    RawPeer.HEX.formatHex(peer.readExactly(10 + 18)));
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
}
