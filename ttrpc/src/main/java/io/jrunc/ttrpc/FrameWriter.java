package io.jrunc.ttrpc;

import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * Writes frames and sync messages, each in a single write so that a reader sees a message arrive in
 * one piece (what {@link FrameReader}'s stall detection counts on). Not thread-safe: callers hold a
 * lock, which also keeps messages from interleaving.
 */
public final class FrameWriter {
    private final ByteStream out;

    public FrameWriter(ByteStream out) {
        this.out = out;
    }

    public void write(Frame frame) throws IOException {
        if (frame.header().oversized()) {
            throw new IllegalArgumentException("frame data over the limit: " + frame.header().length());
        }
        ByteBuffer bytes = ByteBuffer.allocate(FrameHeader.SIZE + frame.data().length);
        frame.header().encode(bytes);
        bytes.put(frame.data()).flip();
        out.write(bytes);
    }

    public void writeSync(Sync.Kind kind, byte[] nonce) throws IOException {
        out.write(ByteBuffer.wrap(Sync.encode(kind, nonce)));
    }
}
