package io.jrunc.vm.cli;

import io.jrunc.bindings.ErrnoException;
import io.jrunc.bindings.Terminals;
import java.util.Optional;

/**
 * The CLI's own terminal, for `exec -t` and `run -t`: whether a descriptor is a terminal, its size,
 * and raw mode (no echo, no line editing, no signals from keys; the saved settings restored on close
 * and at exit) so that keys reach the process in the guest as typed. The ioctls are the bindings'
 * {@link Terminals}; a descriptor that is no terminal gives empty answers rather than errors.
 */
final class HostTerminal implements AutoCloseable {
    record Size(int rows, int columns) {
    }

    /** Every terminal put in raw mode and not yet restored, for {@link #restoreAll}. */
    private static final java.util.Set<HostTerminal> RAW = java.util.concurrent.ConcurrentHashMap.newKeySet();

    private final int fd;
    private final byte[] saved;

    private HostTerminal(int fd, byte[] saved) {
        this.fd = fd;
        this.saved = saved;
    }

    static boolean isTerminal(int fd) {
        return Terminals.isTerminal(fd);
    }

    /** The terminal's rows and columns, or empty when fd is not a terminal. */
    static Optional<Size> size(int fd) {
        try {
            int[] size = Terminals.size(fd);
            return Optional.of(new Size(size[0], size[1]));
        } catch (ErrnoException e) {
            return Optional.empty();
        }
    }

    /** Puts the terminal in raw mode until {@link #close}; empty when fd is not a terminal. */
    static Optional<HostTerminal> raw(int fd) {
        if (!isTerminal(fd)) {
            return Optional.empty();
        }
        try {
            byte[] saved = Terminals.attributes(fd);
            Terminals.makeRaw(fd);
            HostTerminal t = new HostTerminal(fd, saved);
            RAW.add(t);
            Main.Output.terminalMadeRaw = true;
            Runtime.getRuntime().addShutdownHook(new Thread(t::close));
            return Optional.of(t);
        } catch (ErrnoException e) {
            return Optional.empty();
        }
    }

    /** Restores every terminal still raw: a CLI that leaves without the JVM's shutdown hooks calls it. */
    static void restoreAll() {
        for (HostTerminal t : RAW) {
            t.close();
        }
    }

    @Override
    public synchronized void close() {
        RAW.remove(this);
        try {
            Terminals.restore(fd, saved);
        } catch (ErrnoException e) {
            // the terminal is gone
        }
    }
}
