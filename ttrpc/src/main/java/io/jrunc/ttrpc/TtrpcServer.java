package io.jrunc.ttrpc;

import java.io.IOException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A ttRPC server over any byte stream: each accepted connection, or one port that outlives its
 * clients. Requests go to the {@link Dispatcher}; each runs on its own virtual thread, so a call that
 * waits (Wait, ReadOutput) holds nothing else up. Nothing a client sends ends the server: a bad
 * message is answered with a status, a stream that loses its framing is closed (a connection) or
 * resynchronised (a port), and a handler's exception becomes an INTERNAL status.
 */
public final class TtrpcServer implements AutoCloseable {
    private final Dispatcher dispatcher;
    private final ServerOptions options;
    private final Set<ServerSession> sessions = ConcurrentHashMap.newKeySet();
    private final Set<ServerSocketChannel> listeners = ConcurrentHashMap.newKeySet();
    private final AtomicLong sessionCount = new AtomicLong();
    private volatile boolean closed;

    public TtrpcServer(Dispatcher dispatcher, ServerOptions options) {
        this.dispatcher = dispatcher;
        this.options = options;
    }

    /**
     * Serves every connection the listener accepts, each on its own virtual thread, until the listener
     * or this server is closed. Blocks.
     */
    public void serveConnections(ServerSocketChannel listener) throws IOException {
        listeners.add(listener);
        try {
            while (!closed) {
                SocketChannel channel;
                try {
                    channel = listener.accept();
                } catch (ClosedChannelException e) {
                    return;
                }
                ServerSession session = new ServerSession("connection " + sessionCount.incrementAndGet(),
                        ByteStream.of(channel), dispatcher, options, false);
                sessions.add(session);
                Thread.ofVirtual().name("ttrpc-session").start(() -> {
                    try {
                        session.run();
                    } finally {
                        sessions.remove(session);
                    }
                });
                if (closed) {
                    session.close();
                }
            }
        } finally {
            listeners.remove(listener);
        }
    }

    /**
     * Serves one connection its caller accepted (a caller that keeps its own accept loop, counting
     * connections) until it ends or this server is closed. Blocks.
     */
    public void serveConnection(SocketChannel channel) {
        serve("connection ", ByteStream.of(channel), false);
    }

    /**
     * Serves one connection that is not a SocketChannel (an AF_VSOCK socket opened through FFM) until
     * it ends or this server is closed. Blocks.
     */
    public void serveConnection(ByteStream connection) {
        serve("connection ", connection, false);
    }

    /**
     * Serves a stream that outlives its clients (a virtio-serial port), resynchronising on each new
     * client's preamble, until the stream ends or this server is closed. Blocks.
     */
    public void servePort(ByteStream port) {
        serve("port ", port, true);
    }

    /** One session on {@code stream}; {@code port}: it outlives its clients and resynchronises. */
    private void serve(String kind, ByteStream stream, boolean port) {
        ServerSession session = new ServerSession(kind + sessionCount.incrementAndGet(), stream, dispatcher,
                options, port);
        sessions.add(session);
        try {
            if (!closed) {
                session.run();
            }
        } finally {
            sessions.remove(session);
            session.close();
        }
    }

    @Override
    public void close() {
        closed = true;
        for (ServerSocketChannel listener : listeners) {
            try {
                listener.close();
            } catch (IOException ignored) {
                // closing is all that is asked
            }
        }
        sessions.forEach(ServerSession::close);
    }
}
