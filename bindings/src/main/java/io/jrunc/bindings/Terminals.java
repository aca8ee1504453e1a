package io.jrunc.bindings;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * Pseudo-terminals opened through /dev/ptmx of the calling thread's mount namespace, so a container's
 * pty belongs to the container's devpts instance. ioctl numbers from include/uapi/asm-generic/ioctls.h.
 */
public final class Terminals {
    private Terminals() {}

    private static final long TIOCSWINSZ = 0x5414, TIOCGPTN = 0x80045430L, TIOCSPTLCK = 0x40045431L;

    // struct winsize
    static final long WINSIZE_SIZE = 8, WS_ROW = 0, WS_COL = 2;

    /** A pty master and the path of its slave as seen in the namespace it was opened in. */
    public record Pty(int master, String slavePath) {}

    public static Pty open() {
        int master = FileDescriptors.open("/dev/ptmx",
                FileDescriptors.O_RDWR | FileDescriptors.O_NOCTTY | FileDescriptors.O_CLOEXEC);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment value = arena.allocate(JAVA_INT);
            value.set(JAVA_INT, 0, 0);
            FileDescriptors.ioctl(master, TIOCSPTLCK, value.address()); // unlockpt
            FileDescriptors.ioctl(master, TIOCGPTN, value.address());   // ptsname
            return new Pty(master, "/dev/pts/" + value.get(JAVA_INT, 0));
        } catch (RuntimeException e) {
            FileDescriptors.closeQuietly(master);
            throw e;
        }
    }

    private static final long TCGETS = 0x5401, TCSETS = 0x5402, TIOCGWINSZ = 0x5413;
    /**
     * glibc's struct termios (60 bytes). The ioctls use the kernel's shorter form (c_cc[19], no speed
     * fields) whose leading fields lie at the same offsets, so a glibc-sized buffer holds either.
     */
    static final int TERMIOS_SIZE = 60, TERMIOS_IFLAG = 0, TERMIOS_OFLAG = 4, TERMIOS_CFLAG = 8,
            TERMIOS_LFLAG = 12, TERMIOS_CC = 17;
    private static final int VTIME = 5, VMIN = 6;

    /** True if {@code fd} is a terminal (the TCGETS ioctl succeeds, as isatty(3) checks). */
    public static boolean isTerminal(int fd) {
        try (Arena arena = Arena.ofConfined()) {
            FileDescriptors.ioctl(fd, TCGETS, arena.allocate(TERMIOS_SIZE, 4).address());
            return true;
        } catch (ErrnoException e) {
            return false;
        }
    }

    /** The terminal attributes of {@code fd}, to be given back to {@link #restore}. */
    public static byte[] attributes(int fd) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment t = arena.allocate(TERMIOS_SIZE, 4);
            FileDescriptors.ioctl(fd, TCGETS, t.address());
            return t.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
        }
    }

    public static void restore(int fd, byte[] attributes) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment t = arena.allocate(TERMIOS_SIZE, 4);
            t.copyFrom(MemorySegment.ofArray(attributes));
            FileDescriptors.ioctl(fd, TCSETS, t.address());
        }
    }

    /** Raw mode as cfmakeraw(3) sets it: no echo, no line editing, no signals from keys, 8-bit bytes. */
    public static void makeRaw(int fd) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment t = arena.allocate(TERMIOS_SIZE, 4);
            FileDescriptors.ioctl(fd, TCGETS, t.address());
            int iflag = t.get(JAVA_INT, TERMIOS_IFLAG) & ~(01 | 02 | 010 | 040 | 0100 | 0200 | 0400 | 02000);
            int oflag = t.get(JAVA_INT, TERMIOS_OFLAG) & ~01;
            int lflag = t.get(JAVA_INT, TERMIOS_LFLAG) & ~(010 | 0100 | 02 | 01 | 0100000);
            int cflag = (t.get(JAVA_INT, TERMIOS_CFLAG) & ~(060 | 0400)) | 060;
            t.set(JAVA_INT, TERMIOS_IFLAG, iflag);
            t.set(JAVA_INT, TERMIOS_OFLAG, oflag);
            t.set(JAVA_INT, TERMIOS_LFLAG, lflag);
            t.set(JAVA_INT, TERMIOS_CFLAG, cflag);
            t.set(java.lang.foreign.ValueLayout.JAVA_BYTE, TERMIOS_CC + VMIN, (byte) 1);
            t.set(java.lang.foreign.ValueLayout.JAVA_BYTE, TERMIOS_CC + VTIME, (byte) 0);
            FileDescriptors.ioctl(fd, TCSETS, t.address());
        }
    }

    /** {rows, columns} of the terminal {@code fd}. */
    public static int[] size(int fd) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment ws = arena.allocate(8, 2);
            FileDescriptors.ioctl(fd, TIOCGWINSZ, ws.address());
            return new int[] {Short.toUnsignedInt(ws.get(JAVA_SHORT, 0)), Short.toUnsignedInt(ws.get(JAVA_SHORT, 2))};
        }
    }

    public static void setSize(int fd, int rows, int columns) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment ws = arena.allocate(WINSIZE_SIZE, 2);
            ws.set(JAVA_SHORT, WS_ROW, (short) rows);
            ws.set(JAVA_SHORT, WS_COL, (short) columns);
            FileDescriptors.ioctl(fd, TIOCSWINSZ, ws.address());
        }
    }
}
