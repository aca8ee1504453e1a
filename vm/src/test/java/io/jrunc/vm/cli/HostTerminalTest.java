package io.jrunc.vm.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrunc.bindings.FileDescriptors;
import io.jrunc.bindings.Terminals;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** HostTerminal on a real pseudo-terminal (/dev/ptmx) and on a pipe. */
class HostTerminalTest {
    static final int ICANON = 0x2;
    static final int ECHO = 0x8;
    /** c_lflag's offset in struct termios. */
    static final int LFLAG = 12;

    int master = -1;

    @BeforeEach
    void open() {
        master = Terminals.open().master();
    }

    @AfterEach
    void close() {
        FileDescriptors.close(master);
    }

    int lflag() {
        return ByteBuffer.wrap(Terminals.attributes(master)).order(ByteOrder.nativeOrder()).getInt(LFLAG);
    }

    @Test
    void sizeIsReadBack() {
        Terminals.setSize(master, 33, 99);
        assertTrue(HostTerminal.isTerminal(master));
        assertEquals(Optional.of(new HostTerminal.Size(33, 99)), HostTerminal.size(master));
    }

    @Test
    void notATerminal() {
        int[] pipe = FileDescriptors.pipe(FileDescriptors.O_CLOEXEC);
        try {
            assertFalse(HostTerminal.isTerminal(pipe[0]));
            assertEquals(Optional.empty(), HostTerminal.size(pipe[0]));
            assertEquals(Optional.empty(), HostTerminal.raw(pipe[0]));
        } finally {
            FileDescriptors.close(pipe[0]);
            FileDescriptors.close(pipe[1]);
        }
    }

    @Test
    void rawModeThenRestored() {
        int before = lflag();
        assertTrue((before & ICANON) != 0 && (before & ECHO) != 0, "a new pty is canonical with echo");
        HostTerminal raw = HostTerminal.raw(master).orElseThrow();
        assertEquals(0, lflag() & (ICANON | ECHO), "raw: no line editing, no echo");
        raw.close();
        assertEquals(before, lflag(), "restored");
    }
}
