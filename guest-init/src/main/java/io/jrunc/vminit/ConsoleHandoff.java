package io.jrunc.vminit;

import io.jrunc.bindings.FileDescriptors;
import io.jrunc.bindings.UnixSockets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The console socket protocol (go-runc's: the pty's name as data, its master as SCM_RIGHTS) with the
 * agent on both ends: the runtime library makes the pty inside the container and sends the master,
 * which the agent keeps as the process's terminal. Create takes a connected socket (a socketpair's
 * end); exec takes a path, so a listener is made for it.
 */
final class ConsoleHandoff implements AutoCloseable {
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
        Files.createDirectories(SOCKETS);
        Path path = SOCKETS.resolve(name + ".sock");
        Files.deleteIfExists(path);
        return new ConsoleHandoff(-1, UnixSockets.listen(path.toString()), path);
    }

    int runtimeEnd() {
        return runtimeEnd;
    }

    Path path() {
        return path;
    }

    /** The pty master the runtime sent (blocks until it has). */
    int receiveMaster() {
        int socket = agentEnd;
        boolean accepted = false;
        if (path != null) {
            socket = UnixSockets.accept(agentEnd);
            accepted = true;
        }
        try {
            UnixSockets.Received received = UnixSockets.receiveWithFd(socket, 4096);
            if (received.fd() < 0) {
                throw new IllegalStateException("the runtime sent no terminal");
            }
            return received.fd();
        } finally {
            if (accepted) {
                FileDescriptors.closeQuietly(socket);
            }
        }
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
