package io.jrunc.runtime;

import io.jrunc.bindings.Errno;
import io.jrunc.bindings.ErrnoException;
import io.jrunc.bindings.FileDescriptors;
import io.jrunc.bindings.UnixSockets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * The console socket protocol (go-runc's: the pty's name as data, its master as SCM_RIGHTS) with a
 * long-lived creator on both ends (the guest agent, the containerd shim): the runtime library makes
 * the pty inside the container and sends the master, which the creator keeps as the process's
 * terminal. Create takes a connected socket (a socketpair's end, {@link CreateOptions#consoleFd});
 * exec takes a path, so a listener is made for it.
 */
public final class ConsoleHandoff implements AutoCloseable {
    /**
     * How long the agent waits for the master. The runtime sends it before create or exec returns, so
     * it is there at once; the limit is for a runtime that never sends, which must not hold the call
     * (and the container's process it made) for ever.
     */
    public static final Duration LIMIT = Duration.ofSeconds(10);
    private final int runtimeEnd;
    private final int agentEnd;
    private final Path path;

    private ConsoleHandoff(int runtimeEnd, int agentEnd, Path path) {
        this.runtimeEnd = runtimeEnd;
        this.agentEnd = agentEnd;
        this.path = path;
    }

    /** For create: a connected pair; {@link #runtimeEnd()} goes to CreateOptions.consoleFd. */
    public static ConsoleHandoff pair() {
        int[] pair = UnixSockets.pair(UnixSockets.SOCK_STREAM);
        return new ConsoleHandoff(pair[0], pair[1], null);
    }

    /** For exec: a listening socket at {@link #path()}, {@code directory/name.sock}. */
    public static ConsoleHandoff listener(Path directory, String name) throws java.io.IOException {
        Files.createDirectories(directory);
        Path path = directory.resolve(name + ".sock");
        Files.deleteIfExists(path);
        return new ConsoleHandoff(-1, UnixSockets.listen(path.toString()), path);
    }

    public int runtimeEnd() {
        return runtimeEnd;
    }

    public Path path() {
        return path;
    }

    /** The pty master the runtime sent, waiting at most {@link #LIMIT}. */
    public int receiveMaster() {
        return receiveMaster(LIMIT);
    }

    /**
     * The pty master the runtime sent, waiting at most {@code limit} for the connection (exec) and the
     * message together; IllegalStateException saying what did not come.
     */
    public int receiveMaster(Duration limit) {
        long deadline = System.nanoTime() + limit.toNanos();
        int socket = agentEnd;
        boolean accepted = false;
        try {
            if (path != null) {
                socket = UnixSockets.accept(agentEnd, millisLeft(deadline));
                accepted = true;
            }
            UnixSockets.Received received = UnixSockets.receiveWithFd(socket, 4096, millisLeft(deadline));
            if (received.fd() < 0) {
                throw new IllegalStateException("the runtime sent no terminal");
            }
            return received.fd();
        } catch (ErrnoException e) {
            if (e.is(Errno.ETIMEDOUT)) {
                throw new IllegalStateException("the runtime sent no terminal within " + limit.toMillis() + " ms");
            }
            throw e;
        } finally {
            if (accepted) {
                FileDescriptors.closeQuietly(socket);
            }
        }
    }

    private static int millisLeft(long deadline) {
        return (int) Math.max(0, Math.min(Integer.MAX_VALUE, (deadline - System.nanoTime()) / 1_000_000));
    }

    @Override
    public void close() {
        FileDescriptors.closeQuietly(runtimeEnd);
        FileDescriptors.closeQuietly(agentEnd);
        if (path != null) {
            try {
                Files.deleteIfExists(path);
            } catch (java.io.IOException ignored) {
                // under /run: gone with the VM
            }
        }
    }
}
