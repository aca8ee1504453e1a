package io.jrunc.ttrpc;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Duration;

/**
 * Reads ttRPC frames and sync messages from a byte stream, one message boundary at a time, and hunts
 * for a sync message after the stream lost its place.
 *
 * <p>All reads go through one small buffer so that bytes the reader judged wrong can be judged again
 * by a hunt, and so that an oversized header costs nothing: a frame's data is allocated only after
 * its length has been checked against the 4 MiB limit.
 *
 * <p>Stall detection (only when a stall timeout is given, i.e. on a channel that outlives its clients):
 * qemu's socket chardev does not tell the guest that a host client died, so a half-received message
 * whose rest has not come for that long may be a dead client's. It is dropped when the bytes that then
 * arrive begin as a sync preamble (a new client's, which resends it less often than the stall timeout):
 * those are judged afresh. Any other late bytes are the rest of the message from a live client that
 * was slow (a host too busy to run qemu's I/O, or this reader's CPU, for a while): they are kept. A
 * client that died half way and the next one's bytes taken as its rest make a frame that fails to
 * parse or loses the framing, and the hunt that follows finds the next client's resent preamble.
 *
 * <p>Not thread-safe: one thread reads.
 */
public final class FrameReader {
    private static final int BUFFER_SIZE = 64 * 1024;

    private final ByteStream in;
    private final long stallNanos;
    /** In read mode: position..limit are the bytes not yet consumed. */
    private final ByteBuffer buf = ByteBuffer.allocate(BUFFER_SIZE).flip();
    private long discarded;

    private enum Fill { OK, END, STALLED }

    /** A reader without stall detection (a stream that ends when its peer goes). */
    public FrameReader(ByteStream in) {
        this(in, Duration.ZERO);
    }

    /** @param stallTimeout how long a half-received message may wait for its rest; zero for ever */
    public FrameReader(ByteStream in, Duration stallTimeout) {
        this.in = in;
        this.stallNanos = stallTimeout.toNanos();
    }

    /** The next message: a frame, a sync message, or why neither could be read. */
    public Inbound next() throws IOException {
        if (ensure(1, false) == Fill.END) {
            return new Inbound.End();
        }
        // A frame's first byte is the top byte of a length of at most 4 MiB, so 0 in any valid frame;
        // any other value but the sync lead is read as a header all the same, so that ttRPC's answer to
        // an oversized length (a status on its stream) is given whatever the length.
        return buf.get(buf.position()) == Sync.LEAD ? readSync() : readFrame();
    }

    private Inbound readFrame() throws IOException {
        switch (ensure(FrameHeader.SIZE, false)) {
            case END -> {
                return new Inbound.End();
            }
            case STALLED -> {
                return stalled("header");
            }
            case OK -> {
            }
        }
        FrameHeader header = FrameHeader.decode(buf);
        if (header.oversized()) {
            return new Inbound.Oversized(header);
        }
        byte[] data = new byte[(int) header.length()];
        int filled = 0;
        while (true) {
            int n = Math.min(data.length - filled, buf.remaining());
            buf.get(data, filled, n);
            filled += n;
            if (filled == data.length) {
                return new Inbound.FrameIn(new Frame(header, data));
            }
            switch (readMore(true)) {
                case END -> {
                    return new Inbound.End();
                }
                case STALLED -> {
                    return stalled("frame of " + data.length + " bytes (" + filled + " received)");
                }
                case OK -> {
                }
            }
        }
    }

    private Inbound readSync() throws IOException {
        while (true) {
            int have = Math.min(buf.remaining(), Sync.LENGTH);
            boolean preamble = Sync.prefixMatches(Sync.Kind.PREAMBLE, buf, buf.position(), have);
            boolean ack = Sync.prefixMatches(Sync.Kind.ACK, buf, buf.position(), have);
            if (!preamble && !ack) {
                // Left at the 0xff: a hunt judges it again and moves on.
                return new Inbound.OutOfSync("bytes after 0xff that are not a sync message");
            }
            if (have == Sync.LENGTH) {
                buf.position(buf.position() + Sync.LENGTH - Sync.NONCE_LENGTH);
                byte[] nonce = new byte[Sync.NONCE_LENGTH];
                buf.get(nonce);
                return new Inbound.SyncIn(preamble ? Sync.Kind.PREAMBLE : Sync.Kind.ACK, nonce);
            }
            switch (readMore(true)) {
                case END -> {
                    return new Inbound.End();
                }
                case STALLED -> {
                    return stalled("sync message");
                }
                case OK -> {
                }
            }
        }
    }

    /**
     * Discards bytes until a whole sync message of that kind, and returns its nonce; null when the
     * stream ends first. {@link #discarded()} then tells how many bytes were skipped.
     */
    public byte[] hunt(Sync.Kind kind) throws IOException {
        discarded = 0;
        while (true) {
            int start = buf.position();
            int i = start;
            while (i < buf.limit() && buf.get(i) != Sync.LEAD) {
                i++;
            }
            discarded += i - start;
            buf.position(i);
            if (i < buf.limit()) {
                int have = Math.min(buf.limit() - i, Sync.LENGTH);
                if (!Sync.prefixMatches(kind, buf, i, have)) {
                    buf.position(i + 1);
                    discarded++;
                    continue;
                }
                if (have == Sync.LENGTH) {
                    buf.position(i + Sync.LENGTH - Sync.NONCE_LENGTH);
                    byte[] nonce = new byte[Sync.NONCE_LENGTH];
                    buf.get(nonce);
                    return nonce;
                }
            }
            if (readMore(false) == Fill.END) {
                discarded += buf.remaining();
                return null;
            }
        }
    }

    /** Bytes the last {@link #hunt} skipped. */
    public long discarded() {
        return discarded;
    }

    private Inbound stalled(String what) {
        return new Inbound.OutOfSync("a " + what + " stopped arriving half way for over "
                + Duration.ofNanos(stallNanos).toMillis() + " ms: its sender is taken to be gone");
    }

    /** Makes at least {@code need} (at most the buffer's size) unconsumed bytes available. */
    private Fill ensure(int need, boolean midMessage) throws IOException {
        while (buf.remaining() < need) {
            Fill fill = readMore(midMessage || buf.hasRemaining());
            if (fill != Fill.OK) {
                return fill;
            }
        }
        return Fill.OK;
    }

    /**
     * One read from the stream, appended to the unconsumed bytes. When a message is half received, the
     * read waited longer than the stall timeout and what it brought begins as a sync preamble, the half
     * message is dropped: the buffer then holds only what this read brought.
     */
    private Fill readMore(boolean midMessage) throws IOException {
        buf.compact();
        int boundary = buf.position();
        long start = System.nanoTime();
        int n;
        try {
            n = in.read(buf);
        } finally {
            buf.flip();
        }
        if (n < 0) {
            return Fill.END;
        }
        if (midMessage && stallNanos > 0 && System.nanoTime() - start >= stallNanos && n > 0
                && Sync.prefixMatches(Sync.Kind.PREAMBLE, buf, boundary, Math.min(n, Sync.LENGTH))) {
            buf.position(boundary);
            return Fill.STALLED;
        }
        return Fill.OK;
    }
}
