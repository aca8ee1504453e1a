package io.jrunc.shim;

import io.jrunc.bindings.Prctl;
import io.jrunc.ttrpc.Dispatcher;
import io.jrunc.ttrpc.ServerOptions;
import io.jrunc.ttrpc.TtrpcServer;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The long-lived shim: the task service on the group's socket until Shutdown finds no task left. It is
 * the subreaper of what its back end starts, so that a container's orphans are its to reap rather than
 * init's, and containerd's events go out through one ordered publisher.
 */
public final class ShimServer {
    private static final System.Logger LOG = System.getLogger(ShimServer.class.getName());

    private final Path socket;
    private final String namespace;
    private final String eventsAddress;
    private final ShimOptions options;
    private final AtomicBoolean ending = new AtomicBoolean();
    private TtrpcServer server;
    private EventPublisher publisher;
    private TaskBackend backend;

    public ShimServer(Path socket, String namespace, String eventsAddress, ShimOptions options) {
        this.socket = socket;
        this.namespace = namespace;
        this.eventsAddress = eventsAddress;
        this.options = options;
    }

    /** Binds the socket; returns false when another shim of the group already serves it. */
    public boolean serve() throws IOException, Backends.BackendException {
        Prctl.setChildSubreaper();
        Files.createDirectories(socket.getParent());
        ServerSocketChannel listener = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        try {
            listener.bind(UnixDomainSocketAddress.of(socket));
        } catch (IOException e) {
            listener.close();
            if (ShimSockets.alive(socket)) {
                return false;
            }
            throw e;
        }
        try {
            publisher = new EventPublisher(eventsAddress, Duration.ofMillis(100));
            EventOrder order = new EventOrder(publisher);
            backend = Backends.create(options, TaskService.callbacks(order));
            TaskService service = new TaskService(backend, order, options.backend(), namespace, this::end);
            server = new TtrpcServer(service.register(new Dispatcher()), ServerOptions.DEFAULTS);
            Runtime.getRuntime().addShutdownHook(new Thread(this::removeSocket));
        } catch (Backends.BackendException | RuntimeException e) {
            listener.close();
            removeSocket();
            throw e;
        }
        server.serveConnections(listener);
        return true;
    }

    /** Shutdown with no task left: the last events out, the socket gone, the process ended. */
    private void end() {
        if (!ending.compareAndSet(false, true)) {
            return;
        }
        try {
            // Shutdown's answer first: containerd waits for it before it closes the connection.
            Thread.sleep(50);
            // No new caller finds this shim; then the last events (the delete) go out.
            server.close();
            removeSocket();
            publisher.drain(Duration.ofSeconds(10));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try {
            backend.close();
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "closing the back end: " + e);
        }
        publisher.close();
        System.exit(0);
    }

    private void removeSocket() {
        try {
            Files.deleteIfExists(socket);
        } catch (IOException ignored) {
            // a socket file left is found stale by the next start of the group
        }
    }
}
