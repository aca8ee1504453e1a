package io.jrunc.vminit;

import io.jrunc.bindings.Errno;
import io.jrunc.bindings.ErrnoException;
import io.jrunc.bindings.FileDescriptors;
import io.jrunc.ttrpc.ByteStream;
import java.io.IOException;
import java.nio.ByteBuffer;

/** A {@link ByteStream} over a descriptor Java has no channel for (an AF_VSOCK socket). */
final class FdStream implements ByteStream {
    /** asm-generic/errno.h */
    private static final int ECONNRESET = 104;
    private final int fd;
    private final byte[] in = new byte[64 * 1024];
    private volatile boolean closed;

    private final boolean socket;

    /** @param socket shut down before closing, so a reader blocked on it wakes up */
    FdStream(int fd, boolean socket) {
        this.fd = fd;
        this.socket = socket;
    }

    @Override
    public int read(ByteBuffer dst) throws IOException {
        try {
            int n;
            do {
                n = FileDescriptors.read(fd, in, Math.min(in.length, dst.remaining()));
            } while (n < 0);
            if (n == 0) {
                return -1;
            }
            dst.put(in, 0, n);
            return n;
        } catch (ErrnoException e) {
            if (closed || e.is(ECONNRESET) || e.is(Errno.EBADF)) {
                return -1;
            }
            throw new IOException(e.getMessage(), e);
        }
    }

    @Override
    public void write(ByteBuffer src) throws IOException {
        while (src.hasRemaining()) {
            byte[] chunk = new byte[Math.min(src.remaining(), 64 * 1024)];
            src.get(src.position(), chunk);
            try {
                int n = FileDescriptors.write(fd, chunk);
                src.position(src.position() + n);
            } catch (ErrnoException e) {
                throw new IOException(e.getMessage(), e);
            }
        }
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            if (socket) {
                io.jrunc.bindings.Vsock.shutdown(fd);
            }
            FileDescriptors.closeQuietly(fd);
        }
    }
}
