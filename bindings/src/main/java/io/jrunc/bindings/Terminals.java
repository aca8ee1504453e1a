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

    public static void setSize(int fd, int rows, int columns) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment ws = arena.allocate(WINSIZE_SIZE, 2);
            ws.set(JAVA_SHORT, WS_ROW, (short) rows);
            ws.set(JAVA_SHORT, WS_COL, (short) columns);
            FileDescriptors.ioctl(fd, TIOCSWINSZ, ws.address());
        }
    }
}
