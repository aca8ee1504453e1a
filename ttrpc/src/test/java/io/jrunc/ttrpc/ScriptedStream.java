package io.jrunc.ttrpc;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.Deque;

/** A stream that hands out scripted chunks, one per read (after an optional pause), then ends. */
final class ScriptedStream implements ByteStream {
    private record Chunk(byte[] bytes, long pauseMillis) {
    }

    private final Deque<Chunk> chunks = new ArrayDeque<>();
    final ByteArrayOutputStream written = new ByteArrayOutputStream();
    private ByteBuffer current = ByteBuffer.allocate(0);

    ScriptedStream then(byte[] bytes) {
        return then(0, bytes);
    }

    ScriptedStream then(long pauseMillis, byte[] bytes) {
        chunks.add(new Chunk(bytes, pauseMillis));
        return this;
    }

    @Override
    public int read(ByteBuffer dst) {
        while (!current.hasRemaining()) {
            Chunk chunk = chunks.poll();
            if (chunk == null) {
                return -1;
            }
            if (chunk.pauseMillis > 0) {
                try {
                    Thread.sleep(chunk.pauseMillis);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return -1;
                }
            }
            current = ByteBuffer.wrap(chunk.bytes);
        }
        int n = Math.min(dst.remaining(), current.remaining());
        dst.put(current.slice(current.position(), n));
        current.position(current.position() + n);
        return n;
    }

    @Override
    public void write(ByteBuffer src) {
        byte[] bytes = new byte[src.remaining()];
        src.get(bytes);
        written.writeBytes(bytes);
    }

    @Override
    public void close() {
    }
}
