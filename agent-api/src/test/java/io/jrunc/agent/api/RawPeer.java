package io.jrunc.agent.api;

import io.jrunc.ttrpc.ByteStream;
import io.jrunc.ttrpc.Frame;
import io.jrunc.ttrpc.FrameReader;
import io.jrunc.ttrpc.Inbound;
import java.io.IOException;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** A hand-driven peer: writes whatever bytes a test builds and reads back what comes, with a timeout. */
final class RawPeer implements AutoCloseable {
    static final HexFormat HEX = HexFormat.of();

    final SocketChannel channel;
    private final FrameReader reader;

    RawPeer(SocketChannel channel) {
        this.channel = channel;
        this.reader = new FrameReader(ByteStream.of(channel));
    }

    static RawPeer connect(Path socket) throws IOException {
        return new RawPeer(SocketChannel.open(UnixDomainSocketAddress.of(socket)));
    }

    void write(byte[] bytes) throws IOException {
        ByteBuffer buf = ByteBuffer.wrap(bytes);
        while (buf.hasRemaining()) {
            channel.write(buf);
        }
    }

    void writeHex(String hex) throws IOException {
        write(HEX.parseHex(hex.replace(" ", "")));
    }

    Inbound next() throws Exception {
        return CompletableFuture.supplyAsync(() -> {
            try {
                return reader.next();
            } catch (IOException e) {
                return new Inbound.End();
            }
        }).get(10, TimeUnit.SECONDS);
    }

    Frame nextFrame() throws Exception {
        Inbound in = next();
        if (in instanceof Inbound.FrameIn(Frame frame)) {
            return frame;
        }
        throw new AssertionError("expected a frame, got " + in);
    }

    /** Exactly {@code n} bytes as they arrive, for byte-for-byte checks. */
    byte[] readExactly(int n) throws Exception {
        return CompletableFuture.supplyAsync(() -> {
            ByteBuffer buf = ByteBuffer.allocate(n);
            try {
                while (buf.hasRemaining()) {
                    if (channel.read(buf) < 0) {
                        throw new AssertionError("end of stream after " + buf.position() + " of " + n + " bytes");
                    }
                }
            } catch (IOException e) {
                throw new AssertionError(e);
            }
            return buf.array();
        }).get(10, TimeUnit.SECONDS);
    }

    @Override
    public void close() throws IOException {
        channel.close();
    }
}
