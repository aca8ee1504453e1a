package io.jrunc.vminit;

import java.io.ByteArrayOutputStream;
import java.util.Arrays;

/**
 * What a process wrote to one stream and nobody has read yet, up to {@link #LIMIT}: a full buffer stops
 * the pump (and so the process's writes), as a full pipe does. Readers long-poll ({@link #take}).
 */
final class OutputBuffer {
    static final int LIMIT = 1 << 20;

    private final ByteArrayOutputStream pending = new ByteArrayOutputStream();
    private boolean eof;

    synchronized void append(byte[] data, int length) throws InterruptedException {
        int off = 0;
        while (off < length) {
            while (pending.size() >= LIMIT) {
                wait();
            }
            int n = Math.min(length - off, LIMIT - pending.size());
            pending.write(data, off, n);
            off += n;
            notifyAll();
        }
    }

    synchronized void end() {
        eof = true;
        notifyAll();
    }

    /** Waits until there is data or end of file; returns at most {@code max} bytes, or null at the end. */
    synchronized byte[] take(int max) throws InterruptedException {
        while (pending.size() == 0 && !eof) {
            wait();
        }
        if (pending.size() == 0) {
            return null;
        }
        byte[] all = pending.toByteArray();
        int n = Math.min(max, all.length);
        pending.reset();
        pending.write(all, n, all.length - n);
        notifyAll();
        return Arrays.copyOf(all, n);
    }
}
