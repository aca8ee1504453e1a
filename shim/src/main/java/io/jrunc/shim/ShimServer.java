package io.jrunc.shim;

import io.jrunc.bindings.Prctl;
import io.jrunc.ttrpc.Dispatcher;
import io.jrunc.ttrpc.ServerOptions;
import io.jrunc.ttrpc.TtrpcServer;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CountDownLatch;

/**
 * The long-lived shim: the task service on its socket. It is the subreaper of what its back end starts,
 * so that a container's orphans are its to reap rather than init's, and containerd's events go out
 * through one ordered publisher.
 *
 * <p>When it ends: a shim of one pod or container ends at the Shutdown that finds no task left (as
 * containerd's runc shim does); a shared shim ({@link ShimSharing}) ignores Shutdown and ends after
 * {@code linger} without tasks and without connections. Every accepted connection counts as activity
 * (a member's {@code start} probes the socket just before containerd connects), and the decision to end,
 * the listener's close and the socket's removal happen under the one lock that accepting takes, so a
 * connection is either accepted and counted or refused, never accepted by a shim that then leaves.
 */
public final class ShimServer {
    private static final System.Logger LOG = System.getLogger(ShimServer.class.getName());

    private final Path socket;
    private final String namespace;
    private final String eventsAddress;
    private final ShimOptions options;
    private final ShimSharing sharing;
    private final Object lock = new Object();
    private final CountDownLatch ended = new CountDownLatch(1);
    /** A shared shim's pid file (null otherwise). */
    private final Path pidFile;
    private int connections;
    private long lastActivity;
    private boolean closing;
    /** The socket file this shim bound (its identity): removed only while it is still that file. */
    private Object socketKey;
    private ServerSocketChannel listener;
    private TtrpcServer server;
    private EventPublisher publisher;
    private TaskBackend backend;

    public ShimServer(Path socket, String namespace, String eventsAddress, ShimOptions options, ShimSharing sharing) {
        this.socket = socket;
        this.namespace = namespace;
        this.eventsAddress = eventsAddress;
        this.options = options;
        this.sharing = sharing;
        this.pidFile = sharing.shared() ? ShimSharing.Files.of(options, socket).pid() : null;
    }

    /**
     * Binds the socket and serves until the shim ends; returns false at once when another shim already
     * serves the socket.
     */
    public boolean serve() throws IOException, Backends.BackendException, InterruptedException {
        Prctl.setChildSubreaper();
        Files.createDirectories(socket.getParent());
        listener = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        try {
            listener.bind(UnixDomainSocketAddress.of(socket));
        } catch (IOException e) {
            listener.close();
            if (ShimSockets.alive(socket)) {
                return false;
            }
            throw e;
        }
        socketKey = fileKey(socket);
        try {
            publisher = new EventPublisher(eventsAddress, Duration.ofMillis(100));
            EventOrder order = new EventOrder(publisher);
            backend = Backends.create(options, TaskService.callbacks(order));
            Runnable onEmptyShutdown = sharing.shared() ? () -> { } : this::end;
            TaskService service = new TaskService(backend, order, options.backend(), namespace, onEmptyShutdown);
            server = new TtrpcServer(service.register(new Dispatcher()), ServerOptions.DEFAULTS);
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                removeSocket();
                if (pidFile != null) {
                    deletePidFile();
                    deleteEmptyLog();
                }
            }));
        } catch (Backends.BackendException | RuntimeException e) {
            listener.close();
            removeSocket();
            throw e;
        }
        lastActivity = System.currentTimeMillis();
        if (sharing.shared()) {
            Thread.ofPlatform().daemon().name("shim-linger").start(this::lingerThenEnd);
        }
        Thread.ofPlatform().daemon().name("shim-accept").start(this::accept);
        ended.await();
        return true;
    }

    private void accept() {
        while (true) {
            SocketChannel channel;
            try {
                channel = listener.accept();
            } catch (IOException e) {
                return; // closed: the shim is ending
            }
            synchronized (lock) {
                if (closing) {
                    close(channel);
                    continue;
                }
                connections++;
                lastActivity = System.currentTimeMillis();
            }
            Thread.ofVirtual().name("shim-connection").start(() -> {
                try {
                    server.serveConnection(channel);
                } finally {
                    close(channel);
                    synchronized (lock) {
                        connections--;
                        lastActivity = System.currentTimeMillis();
                    }
                }
            });
        }
    }

    /**
     * A shared shim's end: {@code linger} without a task, a connection, or a touch of its socket file.
     * The launcher's fast {@code start} (no JVM) touches the socket and then reads the pid file; the
     * shim, deciding to end, removes the pid file and then reads the socket's time again: a start that
     * saw the pid file touched the socket before that read, so the shim stays; a start that came later
     * finds no pid file and takes the JVM's path, which probes the socket and starts a shim if need be.
     */
    private void lingerThenEnd() {
        long linger = sharing.linger().toMillis();
        writePidFile();
        while (true) {
            long wait;
            synchronized (lock) {
                long idle = System.currentTimeMillis() - Math.max(lastActivity, socketTouched());
                boolean empty = connections == 0 && backend.empty();
                if (empty && idle >= linger) {
                    deletePidFile();
                    if (System.currentTimeMillis() - socketTouched() >= linger) {
                        closing = true;
                        closeListener();
                        removeSocket();
                        break;
                    }
                    writePidFile();
                    idle = 0;
                }
                wait = empty ? linger - idle : linger;
            }
            try {
                Thread.sleep(Math.max(wait, 10));
            } catch (InterruptedException e) {
                return;
            }
        }
        LOG.log(System.Logger.Level.DEBUG, "no task and no connection for " + sharing.linger().toSeconds() + " s: ending");
        deleteEmptyLog();
        finish();
    }

    /** The socket file's modification time in ms (a fast start's touch), 0 when it is not this shim's. */
    private long socketTouched() {
        try {
            BasicFileAttributes a = Files.readAttributes(socket, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            return Objects.equals(a.fileKey(), socketKey) ? a.lastModifiedTime().toMillis() : 0;
        } catch (IOException e) {
            return 0;
        }
    }

    private void writePidFile() {
        try {
            Path tmp = pidFile.resolveSibling(pidFile.getFileName() + ".tmp");
            Files.createDirectories(pidFile.getParent());
            Files.writeString(tmp, ProcessHandle.current().pid() + "\n");
            Files.move(tmp, pidFile, java.nio.file.StandardCopyOption.ATOMIC_MOVE, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            LOG.log(System.Logger.Level.WARNING, "pid file " + pidFile + ": " + e.getMessage());
        }
    }

    /** A shared shim's log (its stderr, which start opened) when nothing was written to it: nothing to keep. */
    private void deleteEmptyLog() {
        Path log = ShimSharing.Files.of(options, socket).log();
        try {
            if (Files.size(log) == 0) {
                Files.delete(log);
            }
        } catch (IOException ignored) {
            // not there, or written to: kept
        }
    }

    /** The pid file, while it names this shim (a later shared shim of the same socket may have written it). */
    private void deletePidFile() {
        try {
            if (Files.readString(pidFile).strip().equals(Long.toString(ProcessHandle.current().pid()))) {
                Files.delete(pidFile);
            }
        } catch (IOException ignored) {
            // not there: nothing to remove
        }
    }

    /** Shutdown with no task left (a shim of one pod or container): the last events out, the shim ended. */
    private void end() {
        synchronized (lock) {
            if (closing) {
                return;
            }
            closing = true;
        }
        try {
            // Shutdown's answer first: containerd waits for it before it closes the connection.
            Thread.sleep(50);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        synchronized (lock) {
            closeListener();
            removeSocket();
        }
        finish();
    }

    /** After the listener is closed: the connections ended, the last events out, the back end closed. */
    private void finish() {
        server.close();
        try {
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
        ended.countDown();
    }

    private void closeListener() {
        try {
            listener.close();
        } catch (IOException ignored) {
            // closing is all that is asked
        }
    }

    /**
     * The socket file, only while it is the one this shim bound: a shim that found this one gone may
     * have bound a new socket at the same path.
     */
    private void removeSocket() {
        synchronized (lock) {
            try {
                if (socketKey != null && Objects.equals(fileKey(socket), socketKey)) {
                    Files.deleteIfExists(socket);
                }
            } catch (IOException ignored) {
                // a socket file left is found stale by the next start of the group
            }
            socketKey = null;
        }
    }

    private static Object fileKey(Path path) {
        try {
            return Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS).fileKey();
        } catch (IOException e) {
            return null;
        }
    }

    private static void close(SocketChannel channel) {
        try {
            channel.close();
        } catch (IOException ignored) {
            // already closed
        }
    }
}
