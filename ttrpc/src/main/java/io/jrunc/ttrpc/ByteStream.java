package io.jrunc.ttrpc;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ByteChannel;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;

/**
 * What the protocol runs over: an ordered, reliable byte stream in each direction and nothing more. A
 * Unix socket (the host's tests, the pod monitor's clients), an AF_VSOCK socket and a virtio-serial
 * port file all are one; the framing never relies on message boundaries or on seeing the peer
 * disconnect.
 */
public interface ByteStream extends Closeable {
    /** Reads at least one byte into {@code dst}, blocking until some arrive; -1 at end of stream. */
    int read(ByteBuffer dst) throws IOException;

    /** Writes all of {@code src}. */
    void write(ByteBuffer src) throws IOException;

    /** Over a blocking channel (a SocketChannel, a FileChannel on a port). */
    static ByteStream of(ByteChannel channel) {
        return of(channel, channel);
    }

    /** Over two blocking channels, one each way (a pipe pair); closing closes both. */
    static ByteStream of(ReadableByteChannel in, WritableByteChannel out) {
        return new ByteStream() {
            @Override
            public int read(ByteBuffer dst) throws IOException {
                int n;
                do {
                    n = in.read(dst);
                } while (n == 0 && dst.hasRemaining());
                return n;
            }

            @Override
            public void write(ByteBuffer src) throws IOException {
                while (src.hasRemaining()) {
                    out.write(src);
                }
            }

            @Override
            public void close() throws IOException {
                try (in; out) {
                    // try-with-resources closes both even when one close throws
                }
            }
        };
    }
}
