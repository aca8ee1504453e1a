package io.jrunc.vm.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** HostTerminal on a real pseudo-terminal (posix_openpt), opened through FFM. */
class HostTerminalTest {
    static final Linker LINKER = Linker.nativeLinker();
    static final int O_RDWR = 2;
    static final int O_NOCTTY = 0x100;
    static final int ICANON = 0x2;
    static final int ECHO = 0x8;

    @SuppressWarnings("restricted")
    static MethodHandle h(String name, FunctionDescriptor fd, Linker.Option... o) {
        return LINKER.downcallHandle(LINKER.defaultLookup().find(name).orElseThrow(), fd, o);
    }

    static final MethodHandle OPENPT = h("posix_openpt", FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));
    static final MethodHandle CLOSE = h("close", FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));
    static final MethodHandle IOCTL = h("ioctl", FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT,
            ValueLayout.JAVA_LONG, ValueLayout.ADDRESS), Linker.Option.firstVariadicArg(2));
    static final MethodHandle TCGETATTR = h("tcgetattr", FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.ADDRESS));
    static final MethodHandle PIPE = h("pipe", FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS));

    int master = -1;

    @BeforeEach
    void open() throws Throwable {
        master = (int) OPENPT.invokeExact(O_RDWR | O_NOCTTY);
        assertTrue(master >= 0, "posix_openpt");
    }

    @AfterEach
    void close() throws Throwable {
        int ignored = (int) CLOSE.invokeExact(master);
    }

    int lflag() throws Throwable {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment t = a.allocate(HostTerminal.TERMIOS_SIZE);
            assertEquals(0, (int) TCGETATTR.invokeExact(master, t));
            return t.get(ValueLayout.JAVA_INT, 12);
        }
    }

    @Test
    void sizeIsReadBack() throws Throwable {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment ws = a.allocate(8);
            ws.set(ValueLayout.JAVA_SHORT, 0, (short) 33);
            ws.set(ValueLayout.JAVA_SHORT, 2, (short) 99);
            assertEquals(0, (int) IOCTL.invokeExact(master, (long) HostTerminal.TIOCSWINSZ, ws));
        }
        assertTrue(HostTerminal.isTerminal(master));
        assertEquals(Optional.of(new HostTerminal.Size(33, 99)), HostTerminal.size(master));
    }

    @Test
    void notATerminal() throws Throwable {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment fds = a.allocate(8);
            assertEquals(0, (int) PIPE.invokeExact(fds));
            int r = fds.get(ValueLayout.JAVA_INT, 0);
            int w = fds.get(ValueLayout.JAVA_INT, 4);
            assertFalse(HostTerminal.isTerminal(r));
            assertEquals(Optional.empty(), HostTerminal.size(r));
            assertEquals(Optional.empty(), HostTerminal.raw(r));
            int ignored = (int) CLOSE.invokeExact(r);
            ignored = (int) CLOSE.invokeExact(w);
        }
    }

    @Test
    void rawModeThenRestored() throws Throwable {
        int before = lflag();
        assertTrue((before & ICANON) != 0 && (before & ECHO) != 0, "a new pty is canonical with echo");
        HostTerminal raw = HostTerminal.raw(master).orElseThrow();
        assertEquals(0, lflag() & (ICANON | ECHO), "raw: no line editing, no echo");
        raw.close();
        assertEquals(before, lflag(), "restored");
    }
}
