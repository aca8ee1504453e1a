package io.jrunc.runtime;

import io.jrunc.bindings.Errno;
import io.jrunc.bindings.ErrnoException;
import io.jrunc.bindings.FileDescriptors;
import io.jrunc.bindings.Terminals;
import io.jrunc.bindings.UnixSockets;
import sun.misc.Signal;

/**
 * Foreground `run` of a container with a terminal and no --console-socket, as runc does it: jrunc
 * receives the pty master itself (over a socket pair standing in for the console socket), puts its
 * own terminal in raw mode, copies stdin to the pty and the pty to stdout, passes window size changes
 * on, and restores the terminal when the container exits.
 */
public final class TerminalProxy implements AutoCloseable {
    private final int master;
    private final byte[] savedAttributes;

    private TerminalProxy(int master, byte[] savedAttributes) {
        this.master = master;
        this.savedAttributes = savedAttributes;
    }

    /** The two ends: give {@code [0]} to create as its console socket, then {@link #receive} on {@code [1]}. */
    public static int[] socketPair() {
        return UnixSockets.pair(UnixSockets.SOCK_STREAM);
    }

    /** Takes the pty master sent on {@code socket} and starts copying; call before start. */
    public static TerminalProxy receive(int socket) {
        UnixSockets.Received r = UnixSockets.receiveWithFd(socket, 4096);
        if (r.fd() < 0) {
            throw new ContainerException("console: no pty master received");
        }
        byte[] saved = null;
        if (Terminals.isTerminal(0)) {
            saved = Terminals.attributes(0);
            int[] size = Terminals.size(0);
            Terminals.setSize(r.fd(), size[0], size[1]);
            Terminals.makeRaw(0);
            Signal.handle(new Signal("WINCH"), s -> {
                int[] now = Terminals.size(0);
                Terminals.setSize(r.fd(), now[0], now[1]);
            });
        }
        TerminalProxy proxy = new TerminalProxy(r.fd(), saved);
        proxy.copy("jrunc-tty-in", 0, r.fd());
        return proxy;
    }

    /** Copies the container's output to stdout until the pty closes (EIO once every slave fd is gone). */
    public void drainOutput() {
        copyLoop(master, 1);
    }

    private void copy(String name, int from, int to) {
        Thread t = Thread.ofPlatform().name(name).daemon(true).unstarted(() -> copyLoop(from, to));
        t.start();
    }

    private static void copyLoop(int from, int to) {
        byte[] buf = new byte[8192];
        try {
            while (true) {
                int n = FileDescriptors.read(from, buf, buf.length);
                if (n <= 0) {
                    return;
                }
                byte[] chunk = n == buf.length ? buf : java.util.Arrays.copyOf(buf, n);
                int written = 0;
                while (written < n) {
                    byte[] rest = written == 0 ? chunk : java.util.Arrays.copyOfRange(chunk, written, n);
                    written += FileDescriptors.write(to, rest);
                }
            }
        } catch (ErrnoException e) {
            if (!e.is(Errno.EIO) && !e.is(Errno.EBADF)) {
                throw e;
            }
        }
    }

    @Override
    public void close() {
        if (savedAttributes != null) {
            Terminals.restore(0, savedAttributes);
        }
        FileDescriptors.closeQuietly(master);
    }
}
