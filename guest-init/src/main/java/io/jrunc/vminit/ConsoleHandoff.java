package io.jrunc.vminit;

import io.jrunc.bindings.Errno;
import io.jrunc.bindings.ErrnoException;
import io.jrunc.bindings.FileDescriptors;
import io.jrunc.bindings.UnixSockets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * The console socket protocol (go-runc's: the pty's name as data, its master as SCM_RIGHTS) with the
 * agent on both ends: the runtime library makes the pty inside the container and sends the master,
 * which the agent keeps as the process's terminal. Create takes a connected socket (a socketpair's
 * end); exec takes a path, so a listener is made for it.
 */
final class ConsoleHandoff implements AutoCloseable {
    /**
     * How long the agent waits for the master. The runtime sends it before create or exec returns, so
     * it is there at once; the limit is for a runtime that never sends, which must not hold the call
     * (and the container's process it made) for ever.
     */
    static final Duration LIMIT = Duration.ofSeconds(10);
    private static final Path SOCKETS = Path.of("/run/jrunc-vminit/console");
    private final int runtimeEnd;
    private final int agentEnd;
    private final Path path;

    private ConsoleHandoff(int runtimeEnd, int agentEnd, Path path) {
        this.runtimeEnd = runtimeEnd;
        this.agentEnd = agentEnd;
        this.path = path;
    }

    /** For create: a connected pair; {@link #runtimeEnd()} goes to CreateOptions.consoleFd. */
    static ConsoleHandoff pair() {
        int[] pair = UnixSockets.pair(UnixSockets.SOCK_STREAM);
        return new ConsoleHandoff(pair[0], pair[1], null);
    }

    /** For exec: a listening socket at {@link #path()}. */
    static ConsoleHandoff listener(String name) throws java.io.IOException {
        return listener(SOCKETS, name);
    }

    static ConsoleHandoff listener(Path directory, String name) throws java.io.IOException {
        Files.createDirectories(directory);
        Path path = directory.resolve(name + ".sock");
        Files.deleteIfExists(path);
        return new ConsoleHandoff(-1, UnixSockets.listen(path.toString()), path);
    }

    int runtimeEnd() {
        return runtimeEnd;
    }

    Path path() {
        return path;
    }

    /** The pty master the runtime sent, waiting at most {@link #LIMIT}. */
    int receiveMaster() {
        return receiveMaster(LIMIT);
    }

    /**
     * The pty master the runtime sent, waiting at most {@code limit} for the connection (exec) and the
     * message together; IllegalStateException saying what did not come.
     */
    int receiveMaster(Duration limit) {
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
