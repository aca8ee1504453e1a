package io.jrunc.shim;

import com.google.protobuf.Empty;
import io.jrunc.containerd.api.EventsMethods;
import io.jrunc.containerd.api.services.events.Envelope;
import io.jrunc.ttrpc.Code;
import io.jrunc.ttrpc.Dispatcher;
import io.jrunc.ttrpc.RpcException;
import io.jrunc.ttrpc.ServerOptions;
import io.jrunc.ttrpc.TtrpcServer;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * containerd's events service as a shim sees it (Events/Forward over ttRPC on a Unix socket), recording
 * what arrives in arrival order; the first {@code failFirst} calls answer UNAVAILABLE.
 */
final class FakeEventsServer implements AutoCloseable {
    final Path socket;
    private final List<Envelope> received = new ArrayList<>();
    private final List<List<String>> namespaces = new ArrayList<>();
    private final AtomicInteger failures;
    private final TtrpcServer server;

    FakeEventsServer(Path socket, int failFirst) throws IOException {
        this.socket = socket;
        this.failures = new AtomicInteger(failFirst);
        server = new TtrpcServer(new Dispatcher().register(EventsMethods.FORWARD, (context, request) -> {
            if (failures.getAndDecrement() > 0) {
                throw new RpcException(Code.UNAVAILABLE, "not yet");
            }
            synchronized (received) {
                received.add(request.getEnvelope());
                namespaces.add(context.metadata().getOrDefault(EventPublisher.NAMESPACE_KEY, List.of()));
            }
            return Empty.getDefaultInstance();
        }), ServerOptions.DEFAULTS);
        ServerSocketChannel listener = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        listener.bind(UnixDomainSocketAddress.of(socket));
        Thread.ofVirtual().start(() -> {
            try {
                server.serveConnections(listener);
            } catch (IOException ignored) {
                // closed
            }
        });
    }

    List<Envelope> received() {
        synchronized (received) {
            return List.copyOf(received);
        }
    }

    List<List<String>> metadataNamespaces() {
        synchronized (received) {
            return List.copyOf(namespaces);
        }
    }

    @Override
    public void close() {
        server.close();
    }
}
