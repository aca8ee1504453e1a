package io.jrunc.shim;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/** Whether a shim's socket has a live shim behind it. */
public final class ShimSockets {
    private ShimSockets() {
    }

    /** True when something accepts connections at {@code socket} (a connect succeeds). */
    public static boolean alive(Path socket) {
        if (!Files.exists(socket)) {
            return false;
        }
        try (SocketChannel channel = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            channel.connect(UnixDomainSocketAddress.of(socket));
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** The ttRPC service that no shim serves: a request to it is answered UNIMPLEMENTED at once. */
    static final String PROBE_SERVICE = "jrunc.shim.v1.Probe";
    private static final byte[] PROBE = probeFrame();

    /**
     * True when a shim answers a ttRPC request at {@code socket} within {@code timeoutMillis}. More than
     * {@link #alive}: a connect succeeds as soon as the kernel queues it, even to a shim that is closing
     * its listener; an answer means the shim accepted the connection, and a shim that lingers counts
     * every accepted connection as activity, so it stays for its linger time after this answer.
     */
    public static boolean answers(Path socket, long timeoutMillis) {
        if (!Files.exists(socket)) {
            return false;
        }
        try (SocketChannel channel = SocketChannel.open(StandardProtocolFamily.UNIX);
             Selector selector = Selector.open()) {
            channel.connect(UnixDomainSocketAddress.of(socket));
            channel.write(ByteBuffer.wrap(PROBE));
            channel.configureBlocking(false);
            channel.register(selector, SelectionKey.OP_READ);
            ByteBuffer header = ByteBuffer.allocate(10);
            long deadline = System.nanoTime() + timeoutMillis * 1_000_000;
            while (header.hasRemaining()) {
                long left = (deadline - System.nanoTime()) / 1_000_000;
                if (left <= 0 || selector.select(left) == 0 && System.nanoTime() >= deadline) {
                    return false;
                }
                selector.selectedKeys().clear();
                if (channel.read(header) < 0) {
                    return false;
                }
            }
            return header.get(8) == 2; // a response frame
        } catch (IOException e) {
            return false;
        }
    }

    /** A ttRPC request frame (stream 1) for method Ping of {@link #PROBE_SERVICE}, encoded by hand. */
    private static byte[] probeFrame() {
        byte[] service = PROBE_SERVICE.getBytes(StandardCharsets.US_ASCII);
        byte[] method = "Ping".getBytes(StandardCharsets.US_ASCII);
        // Request{service = 1, method = 2}: each a tag byte, a one-byte length, the bytes
        int length = 2 + service.length + 2 + method.length;
        ByteBuffer b = ByteBuffer.allocate(10 + length);
        b.putInt(length).putInt(1).put((byte) 1).put((byte) 0);
        b.put((byte) 0x0a).put((byte) service.length).put(service);
        b.put((byte) 0x12).put((byte) method.length).put(method);
        return b.array();
    }
}
