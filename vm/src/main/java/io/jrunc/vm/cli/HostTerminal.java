package io.jrunc.vm.cli;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.Optional;

/**
 * The CLI's own terminal, for `exec -t` and `run -t`, through FFM (libc): whether a descriptor is a
 * terminal, its size (ioctl TIOCGWINSZ, include/uapi/asm-generic/ioctls.h), and raw mode (cfmakeraw,
 * then tcsetattr; the saved settings restored on close) so that keys reach the process in the guest
 * as typed. Handles are made when first used: a command without -t makes none.
 */
final class HostTerminal implements AutoCloseable {
    static final int TIOCGWINSZ = 0x5413;
    static final int TIOCSWINSZ = 0x5414;
    /** sizeof(struct termios) on x86_64 glibc: 4 flags of 4 bytes, c_line, c_cc[32], 2 speeds (with padding). */
    static final long TERMIOS_SIZE = 60;
    private static final int TCSANOW = 0;

    private static final Linker LINKER = Linker.nativeLinker();

    @SuppressWarnings("restricted") // native access is this module's declared need (Enable-Native-Access)
    private static MethodHandle handle(String name, FunctionDescriptor fd, Linker.Option... options) {
        return LINKER.downcallHandle(LINKER.defaultLookup().find(name).orElseThrow(), fd, options);
    }

    private static final class Handles {
        static final MethodHandle ISATTY = handle("isatty", FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));
        static final MethodHandle IOCTL = handle("ioctl",
                FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG, ValueLayout.ADDRESS),
                Linker.Option.firstVariadicArg(2));
        static final MethodHandle TCGETATTR = handle("tcgetattr",
                FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.ADDRESS));
        static final MethodHandle TCSETATTR = handle("tcsetattr",
                FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.ADDRESS));
        static final MethodHandle CFMAKERAW = handle("cfmakeraw", FunctionDescriptor.ofVoid(ValueLayout.ADDRESS));
    }

    record Size(int rows, int columns) {
    }

    private final int fd;
    private final MemorySegment saved;

    private HostTerminal(int fd, MemorySegment saved) {
        this.fd = fd;
        this.saved = saved;
    }

    static boolean isTerminal(int fd) {
        try {
            return (int) Handles.ISATTY.invokeExact(fd) == 1;
        } catch (Throwable t) {
            return false;
        }
    }

    /** The terminal's rows and columns, or empty when fd is not a terminal. */
    static Optional<Size> size(int fd) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment ws = a.allocate(8);
            if ((int) Handles.IOCTL.invokeExact(fd, (long) TIOCGWINSZ, ws) != 0) {
                return Optional.empty();
            }
            return Optional.of(new Size(Short.toUnsignedInt(ws.get(ValueLayout.JAVA_SHORT, 0)),
                    Short.toUnsignedInt(ws.get(ValueLayout.JAVA_SHORT, 2))));
        } catch (Throwable t) {
            return Optional.empty();
        }
    }

    /** Puts the terminal in raw mode until {@link #close}; empty when fd is not a terminal. */
    static Optional<HostTerminal> raw(int fd) {
        if (!isTerminal(fd)) {
            return Optional.empty();
        }
        try {
            Arena arena = Arena.ofAuto();
            MemorySegment saved = arena.allocate(TERMIOS_SIZE);
            if ((int) Handles.TCGETATTR.invokeExact(fd, saved) != 0) {
                return Optional.empty();
            }
            MemorySegment raw = arena.allocate(TERMIOS_SIZE);
            raw.copyFrom(saved);
            Handles.CFMAKERAW.invokeExact(raw);
            if ((int) Handles.TCSETATTR.invokeExact(fd, TCSANOW, raw) != 0) {
                return Optional.empty();
            }
            HostTerminal t = new HostTerminal(fd, saved);
            Runtime.getRuntime().addShutdownHook(new Thread(t::close));
            return Optional.of(t);
        } catch (Throwable e) {
            return Optional.empty();
        }
    }

    @Override
    public synchronized void close() {
        try {
            int ignored = (int) Handles.TCSETATTR.invokeExact(fd, TCSANOW, saved);
        } catch (Throwable e) {
            // the terminal is gone
        }
    }
}
