package io.jrunc.ttrpc;

import java.nio.ByteBuffer;

/**
 * The 10-byte header in front of every ttRPC message (containerd/ttrpc PROTOCOL.md, "Message Frame"):
 * data length (u32), stream id (u32), both big-endian, then message type (u8) and flags (u8).
 *
 * @param length   the data length, unsigned (held in a long so a hostile 4 GiB value stays positive)
 * @param streamId the stream id, unsigned; odd for client-initiated streams
 * @param type     the message type byte, 0..255, possibly one this side does not know
 * @param flags    the flags byte, 0..255; its meaning depends on the type
 */
public record FrameHeader(long length, int streamId, int type, int flags) {
    public static final int SIZE = 10;

    /** ttRPC's limit on a message's data (messageLengthMax in containerd/ttrpc); longer is refused. */
    public static final int MAX_DATA_LENGTH = 4 << 20;

    public static final int TYPE_REQUEST = 1;
    public static final int TYPE_RESPONSE = 2;
    public static final int TYPE_DATA = 3;

    /** Request and data flag: the sender sends no more data on this stream (streaming only). */
    public static final int FLAG_REMOTE_CLOSED = 0x01;
    /** Request flag: the sender will send data frames after the request (streaming only). */
    public static final int FLAG_REMOTE_OPEN = 0x02;

    public FrameHeader {
        if (length < 0 || length > 0xFFFF_FFFFL) {
            throw new IllegalArgumentException("length out of u32 range: " + length);
        }
        if ((type & ~0xFF) != 0 || (flags & ~0xFF) != 0) {
            throw new IllegalArgumentException("type and flags are bytes: " + type + ", " + flags);
        }
    }

    /** Reads a header at the buffer's position, advancing it by {@link #SIZE}. */
    public static FrameHeader decode(ByteBuffer in) {
        long length = Integer.toUnsignedLong(in.getInt());
        int streamId = in.getInt();
        int type = Byte.toUnsignedInt(in.get());
        int flags = Byte.toUnsignedInt(in.get());
        return new FrameHeader(length, streamId, type, flags);
    }

    public void encode(ByteBuffer out) {
        out.putInt((int) length).putInt(streamId).put((byte) type).put((byte) flags);
    }

    public boolean oversized() {
        return length > MAX_DATA_LENGTH;
    }

    /** The stream id as the unsigned number it is, for messages. */
    public String streamIdText() {
        return Integer.toUnsignedString(streamId);
    }
}
