package io.jrunc.ttrpc;

/** What a {@link FrameReader} found at the next message boundary. */
public sealed interface Inbound {
    /** A whole frame, its length within the limit. */
    record FrameIn(Frame frame) implements Inbound {
    }

    /** A sync message and its nonce. */
    record SyncIn(Sync.Kind kind, byte[] nonce) implements Inbound {
    }

    /**
     * A header whose length is over {@link FrameHeader#MAX_DATA_LENGTH}. Its data has not been read
     * (nor allocated); the stream is positioned just after the header, so the caller cannot go on
     * reading frames: it closes or resynchronises.
     */
    record Oversized(FrameHeader header) implements Inbound {
    }

    /**
     * The bytes at the boundary are neither a frame nor a sync message, or a message stopped arriving
     * half way (a stall: its sender is gone). The reader is positioned at the first byte it has not
     * judged, so a resynchronisation hunt starts there.
     */
    record OutOfSync(String reason) implements Inbound {
    }

    /** The stream ended (possibly in the middle of a message, which is then dropped). */
    record End() implements Inbound {
    }
}
