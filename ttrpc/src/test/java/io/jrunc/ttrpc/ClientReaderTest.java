package io.jrunc.ttrpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The client's reader thread: a platform daemon thread that ends when the client closes. A virtual
 * reader blocked on a socket starts the JDK's poller thread, which stays in native code for the JVM's
 * life, and the JVM's exit waits 300 ms for such a thread: every short-lived CLI call that connected
 * paid it.
 */
class ClientReaderTest {
    @Test
    void readerIsAPlatformDaemonThreadThatEndsOnClose(@TempDir Path dir) throws Exception {
        Path socket = dir.resolve("s.sock");
        try (ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            server.bind(UnixDomainSocketAddress.of(socket));
            SocketChannel channel = SocketChannel.open(StandardProtocolFamily.UNIX);
            channel.connect(UnixDomainSocketAddress.of(socket));
            try (SocketChannel accepted = server.accept()) {
                TtrpcClient client = TtrpcClient.connect(ByteStream.of(channel), ClientOptions.DEFAULTS.withoutSync());
                // Thread.getAllStackTraces lists platform threads only
                List<Thread> readers = Thread.getAllStackTraces().keySet().stream()
                        .filter(t -> t.getName().equals("ttrpc-client-reader") && t.isAlive()).toList();
                assertEquals(1, readers.size(), "one platform reader thread");
                assertFalse(readers.getFirst().isVirtual());
                assertTrue(readers.getFirst().isDaemon());
                client.close();
                readers.getFirst().join(5_000);
                assertFalse(readers.getFirst().isAlive(), "the reader ends when the client closes");
            }
        }
    }
}
