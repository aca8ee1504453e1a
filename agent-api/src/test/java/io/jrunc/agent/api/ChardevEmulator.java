package io.jrunc.agent.api;

import io.jrunc.ttrpc.ByteStream;
import java.io.IOException;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.Pipe;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;

/**
 * What the agent's port looks like behind qemu's {@code -chardev socket,server=on} and a virtserialport
 * as qemu 7.2 behaves: the guest holds one byte stream for ever; host clients connect to a Unix
 * socket one at a time (a second waits, silent, until the first closes); the guest is not told when a
 * client comes or goes, so a client killed half way through a message leaves its bytes in the guest's
 * stream, and what the guest writes while no client is connected reaches the next one.
 */
final class ChardevEmulator implements AutoCloseable {
    private final Pipe toGuest = Pipe.open();
    private final Pipe fromGuest = Pipe.open();
    private final ServerSocketChannel listener;
    private final Path path;
    private volatile SocketChannel current;
    private volatile boolean closed;

    ChardevEmulator(Path path) throws IOException {
        this.path = path;
        this.listener = ServerSocketChannel.open(java.net.StandardProtocolFamily.UNIX);
        listener.bind(UnixDomainSocketAddress.of(path));
        Thread.ofPlatform().daemon().name("chardev-accept").start(this::acceptLoop);
        Thread.ofPlatform().daemon().name("chardev-to-host").start(this::toHostLoop);
    }

    /** The guest's end: what the agent would open as /dev/vportNpM. */
    ByteStream guestPort() {
        return ByteStream.of(toGuest.source(), fromGuest.sink());
    }

    /** A new host client. */
    ByteStream connect() throws IOException {
        return ByteStream.of(SocketChannel.open(UnixDomainSocketAddress.of(path)));
    }

    SocketChannel connectRaw() throws IOException {
        return SocketChannel.open(UnixDomainSocketAddress.of(path));
    }

    private void acceptLoop() {
        ByteBuffer buf = ByteBuffer.allocate(8192);
        while (!closed) {
            try (SocketChannel client = listener.accept()) {
                current = client;
                while (true) {
                    buf.clear();
                    if (client.read(buf) < 0) {
                        break;
                    }
                    buf.flip();
                    while (buf.hasRemaining()) {
                        toGuest.sink().write(buf);
                    }
                }
            } catch (IOException e) {
                // a client that went away, or the emulator closing
            } finally {
                current = null;
            }
        }
    }

    private void toHostLoop() {
        ByteBuffer buf = ByteBuffer.allocate(8192);
        while (!closed) {
            try {
                buf.clear();
                if (fromGuest.source().read(buf) < 0) {
                    return;
                }
                buf.flip();
                // Held until a client is there, then given to it; lost if it dies meanwhile.
                while (!closed) {
                    SocketChannel client = current;
                    if (client == null) {
                        Thread.sleep(5);
                        continue;
                    }
                    try {
                        while (buf.hasRemaining()) {
                            client.write(buf);
                        }
                    } catch (IOException e) {
                        // dropped with the client
                    }
                    break;
                }
            } catch (IOException | InterruptedException e) {
                return;
            }
        }
    }

    @Override
    public void close() throws IOException {
        closed = true;
        listener.close();
        SocketChannel client = current;
        if (client != null) {
            client.close();
        }
        toGuest.sink().close();
        fromGuest.source().close();
    }
}
