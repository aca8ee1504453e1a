package io.jrunc.ttrpc;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Arrays;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/** The frame and sync-message codec on its own: bytes in, messages out, and what breaks it. */
class FramingTest {
    private static final HexFormat HEX = HexFormat.of();

    private static byte[] bytes(Frame frame) {
        ScriptedStream out = new ScriptedStream();
        try {
            new FrameWriter(out).write(frame);
        } catch (java.io.IOException e) {
            throw new AssertionError(e);
        }
        return out.written.toByteArray();
    }

    private static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] part : parts) {
            out.writeBytes(part);
        }
        return out.toByteArray();
    }

    @Test
    void headerIsTenBigEndianBytes() {
        // PROTOCOL.md: u32 length, u32 stream id, u8 type, u8 flags, big-endian.
        byte[] encoded = bytes(Frame.of(0x01020304, FrameHeader.TYPE_DATA, FrameHeader.FLAG_REMOTE_CLOSED, new byte[] {7, 8}));
        assertEquals("00000002" + "01020304" + "03" + "01" + "0708", HEX.formatHex(encoded));
    }

    @Test
    void headerFieldsAreUnsigned() {
        FrameHeader header = FrameHeader.decode(ByteBuffer.wrap(HEX.parseHex("ffffffff" + "fffffffd" + "ff" + "80")));
        assertEquals(0xFFFF_FFFFL, header.length());
        assertEquals("4294967293", header.streamIdText());
        assertEquals(255, header.type());
        assertEquals(0x80, header.flags());
        assertTrue(header.oversized());
    }

    @Test
    void framesAndSyncMessagesRoundTrip() throws Exception {
        byte[] big = new byte[FrameHeader.MAX_DATA_LENGTH];
        Arrays.fill(big, (byte) 0x5A);
        byte[] nonce = Sync.newNonce();
        ScriptedStream in = new ScriptedStream()
                .then(bytes(Frame.of(1, FrameHeader.TYPE_REQUEST, 0, "hello".getBytes())))
                .then(Sync.encode(Sync.Kind.PREAMBLE, nonce))
                .then(bytes(Frame.of(3, FrameHeader.TYPE_REQUEST, 0, new byte[0])))
                .then(bytes(Frame.of(5, FrameHeader.TYPE_REQUEST, 0, big)))
                .then(Sync.encode(Sync.Kind.ACK, nonce));
        FrameReader reader = new FrameReader(in);

        Frame first = assertInstanceOf(Inbound.FrameIn.class, reader.next()).frame();
        assertEquals(1, first.header().streamId());
        assertEquals("hello", new String(first.data()));
        Inbound.SyncIn preamble = assertInstanceOf(Inbound.SyncIn.class, reader.next());
        assertEquals(Sync.Kind.PREAMBLE, preamble.kind());
        assertArrayEquals(nonce, preamble.nonce());
        assertEquals(0, assertInstanceOf(Inbound.FrameIn.class, reader.next()).frame().data().length);
        // Exactly the limit is allowed, as in ttRPC (length > max is refused).
        assertArrayEquals(big, assertInstanceOf(Inbound.FrameIn.class, reader.next()).frame().data());
        assertEquals(Sync.Kind.ACK, assertInstanceOf(Inbound.SyncIn.class, reader.next()).kind());
        assertInstanceOf(Inbound.End.class, reader.next());
    }

    @Test
    void framesSplitAcrossReadsAreReassembled() throws Exception {
        byte[] frame = bytes(Frame.of(9, FrameHeader.TYPE_RESPONSE, 0, "split data".getBytes()));
        ScriptedStream in = new ScriptedStream();
        for (byte b : frame) {
            in.then(new byte[] {b});
        }
        Frame read = assertInstanceOf(Inbound.FrameIn.class, new FrameReader(in).next()).frame();
        assertEquals("split data", new String(read.data()));
    }

    @Test
    void anOversizedLengthIsRefusedBeforeItsDataIsRead() throws Exception {
        // 2 GiB announced and nothing sent after it: a reader that allocated or waited for the data
        // would fail or hang here; it answers Oversized at once.
        ScriptedStream in = new ScriptedStream().then(HEX.parseHex("7fffffff" + "00000005" + "01" + "00"));
        Inbound.Oversized oversized = assertInstanceOf(Inbound.Oversized.class, new FrameReader(in).next());
        assertEquals(0x7FFF_FFFFL, oversized.header().length());
        assertEquals(5, oversized.header().streamId());

        ScriptedStream justOver = new ScriptedStream().then(HEX.parseHex("00400001" + "00000001" + "01" + "00"));
        assertInstanceOf(Inbound.Oversized.class, new FrameReader(justOver).next());
    }

    @Test
    void aWriterRefusesAnOversizedFrame() {
        Frame tooBig = Frame.of(1, FrameHeader.TYPE_REQUEST, 0, new byte[FrameHeader.MAX_DATA_LENGTH + 1]);
        assertThrows(IllegalArgumentException.class, () -> new FrameWriter(new ScriptedStream()).write(tooBig));
    }

    @Test
    void junkReadsAsAnOversizedHeaderOrAFailedSyncMessage() throws Exception {
        // Text where a header should be: its first byte is not 0, so its length is over 16 MiB.
        Inbound.Oversized text = assertInstanceOf(Inbound.Oversized.class,
                new FrameReader(new ScriptedStream().then("GET / HTTP/1.1\r\n".getBytes())).next());
        assertEquals(0x47455420L, text.header().length());
        Inbound.OutOfSync notSync = assertInstanceOf(Inbound.OutOfSync.class,
                new FrameReader(new ScriptedStream().then(HEX.parseHex("ff6a72000000"))).next());
        assertTrue(notSync.reason().contains("not a sync message"), notSync.reason());
    }

    @Test
    void aHuntSkipsJunkAndFindsThePreamble() throws Exception {
        byte[] nonce = Sync.newNonce();
        byte[] preamble = Sync.encode(Sync.Kind.PREAMBLE, nonce);
        byte[] junk = concat(HEX.parseHex("00000010000000010100ffff6a7273"), Sync.encode(Sync.Kind.ACK, Sync.newNonce()),
                HEX.parseHex("ff6a7273796e633f00"));   // a preamble whose nonce has a zero: not one
        ScriptedStream in = new ScriptedStream()
                .then(junk)
                .then(Arrays.copyOf(preamble, 5))          // the preamble split across reads
                .then(Arrays.copyOfRange(preamble, 5, 16))
                .then(bytes(Frame.of(1, FrameHeader.TYPE_REQUEST, 0, "after".getBytes())));
        FrameReader reader = new FrameReader(in);
        assertArrayEquals(nonce, reader.hunt(Sync.Kind.PREAMBLE));
        assertEquals(junk.length, reader.discarded());
        assertEquals("after", new String(assertInstanceOf(Inbound.FrameIn.class, reader.next()).frame().data()));
        assertNull(reader.hunt(Sync.Kind.PREAMBLE));
    }

    @Test
    void aHalfMessageThatStallsIsDroppedAndWhatFollowsIsJudgedAfresh() throws Exception {
        byte[] nonce = Sync.newNonce();
        byte[] halfFrame = Arrays.copyOf(bytes(Frame.of(1, FrameHeader.TYPE_REQUEST, 0, new byte[1000])), 300);
        ScriptedStream in = new ScriptedStream()
                .then(halfFrame)
                .then(200, Sync.encode(Sync.Kind.PREAMBLE, nonce));
        FrameReader reader = new FrameReader(in, Duration.ofMillis(100));
        Inbound.OutOfSync stalled = assertInstanceOf(Inbound.OutOfSync.class, reader.next());
        assertTrue(stalled.reason().contains("stopped arriving"), stalled.reason());
        assertArrayEquals(nonce, reader.hunt(Sync.Kind.PREAMBLE));
        assertEquals(0, reader.discarded());
    }

    @Test
    void aHalfMessageWhoseRestComesLateFromALiveClientIsKept() throws Exception {
        // a live client on a busy host: the rest of its frame comes after the stall timeout, and a
        // preamble-looking byte inside a payload (0xff) does not make it one
        byte[] payload = new byte[6000];
        Arrays.fill(payload, (byte) 0xff);
        payload[0] = 7;
        byte[] frame = bytes(Frame.of(3, FrameHeader.TYPE_REQUEST, 0, payload));
        ScriptedStream in = new ScriptedStream()
                .then(Arrays.copyOf(frame, 4096))
                .then(200, Arrays.copyOfRange(frame, 4096, frame.length))
                .then(bytes(Frame.of(5, FrameHeader.TYPE_REQUEST, 0, "next".getBytes())));
        FrameReader reader = new FrameReader(in, Duration.ofMillis(100));
        assertArrayEquals(payload, assertInstanceOf(Inbound.FrameIn.class, reader.next()).frame().data());
        assertEquals("next", new String(assertInstanceOf(Inbound.FrameIn.class, reader.next()).frame().data()));
    }

    @Test
    void withoutAStallTimeoutAPauseIsJustAPause() throws Exception {
        byte[] frame = bytes(Frame.of(1, FrameHeader.TYPE_REQUEST, 0, new byte[100]));
        ScriptedStream in = new ScriptedStream()
                .then(Arrays.copyOf(frame, 40))
                .then(150, Arrays.copyOfRange(frame, 40, frame.length));
        assertInstanceOf(Inbound.FrameIn.class, new FrameReader(in).next());
    }

    @Test
    void syncMessagesAreSixteenNonZeroBytes() {
        for (int i = 0; i < 100; i++) {
            for (Sync.Kind kind : Sync.Kind.values()) {
                byte[] message = Sync.encode(kind, Sync.newNonce());
                assertEquals(Sync.LENGTH, message.length);
                for (byte b : message) {
                    assertTrue(b != 0, "a zero byte would let a reader take it for a frame header");
                }
            }
        }
        assertThrows(IllegalArgumentException.class, () -> Sync.encode(Sync.Kind.ACK, new byte[8]));
    }
}
