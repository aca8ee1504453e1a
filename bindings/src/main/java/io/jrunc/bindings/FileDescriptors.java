package io.jrunc.bindings;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;

/**
 * Raw file descriptors: the runtime needs descriptors it can name by number (to hand to posix_spawn,
 * to send with SCM_RIGHTS, to reopen through /proc/self/fd), which java.nio does not expose.
 * Flag values from include/uapi/asm-generic/fcntl.h (x86-64 and aarch64 differ only in O_DIRECTORY,
 * O_NOFOLLOW, O_DIRECT and O_LARGEFILE, which are chosen per architecture below).
 */
public final class FileDescriptors {
    private FileDescriptors() {}

    private static final boolean AARCH64 = SyscallNumbers.ARCH.equals("aarch64");
    public static final int O_RDONLY = 0, O_WRONLY = 1, O_RDWR = 2, O_CREAT = 0100, O_EXCL = 0200,
            O_NOCTTY = 0400, O_TRUNC = 01000, O_APPEND = 02000, O_NONBLOCK = 04000, O_SYNC = 04010000,
            O_DIRECTORY = AARCH64 ? 040000 : 0200000, O_NOFOLLOW = AARCH64 ? 0100000 : 0400000,
            O_CLOEXEC = 02000000, O_PATH = 010000000;
    public static final int AT_FDCWD = -100;
    public static final int F_GETFD = 1, F_SETFD = 2, F_GETFL = 3, F_SETFL = 4, FD_CLOEXEC = 1,
            F_DUPFD_CLOEXEC = 1030;
    public static final short POLLIN = 1, POLLPRI = 2, POLLOUT = 4, POLLERR = 8, POLLHUP = 16, POLLNVAL = 32;
    public static final int S_IFIFO = 0010000, S_IFCHR = 0020000, S_IFDIR = 0040000, S_IFBLK = 0060000,
            S_IFREG = 0100000;

    // struct pollfd {int fd; short events; short revents}
    static final long POLLFD_SIZE = 8, POLL_FD = 0, POLL_EVENTS = 4, POLL_REVENTS = 6;

    private static final NativeFunction CLOSE = Downcall.function("close", FunctionDescriptor.of(JAVA_INT, JAVA_INT));
    private static final NativeFunction READ = Downcall.function("read",
            FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG));
    private static final NativeFunction WRITE = Downcall.function("write",
            FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG));
    private static final NativeFunction DUP3 = Downcall.function("dup3",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT));
    private static final NativeFunction PIPE2 = Downcall.function("pipe2",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT));
    private static final NativeFunction MKNOD = Downcall.function("mknod",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_LONG));
    private static final NativeFunction MKDIRAT = Downcall.function("mkdirat",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT));
    private static final NativeFunction FCHOWN = Downcall.function("fchown",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT));
    private static final NativeFunction CHOWN = Downcall.function("chown",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT));
    private static final NativeFunction POLL = Downcall.function("poll",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT));

    /** open(2), as openat(AT_FDCWD): glibc's open is variadic, and the raw call needs no extra shape. */
    public static int open(String path, int flags, int mode) {
        try (Arena arena = Arena.ofConfined()) {
            return (int) Syscalls.call("open", path, SyscallNumbers.OPENAT, AT_FDCWD,
                    arena.allocateFrom(path).address(), flags, mode);
        }
    }

    public static int open(String path, int flags) {
        return open(path, flags, 0);
    }

    public static void close(int fd) {
        Calls.checked(CLOSE, "close", Integer.toString(fd), fd);
    }

    /** Closes and ignores errors: for clean-up paths where the first failure is the one to report. */
    public static void closeQuietly(int fd) {
        if (fd >= 0) {
            try {
                close(fd);
            } catch (ErrnoException ignored) {
                // already closed or never valid; nothing to undo
            }
        }
    }

    public static int read(int fd, byte[] buffer, int length) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment buf = arena.allocate(Math.max(1, length));
            int n = Calls.checked(READ, "read", "fd " + fd, fd, buf, (long) length);
            MemorySegment.copy(buf, JAVA_BYTE_LAYOUT, 0, buffer, 0, n);
            return n;
        }
    }

    private static final java.lang.foreign.ValueLayout.OfByte JAVA_BYTE_LAYOUT = java.lang.foreign.ValueLayout.JAVA_BYTE;

    public static int write(int fd, byte[] data) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment buf = arena.allocate(Math.max(1, data.length));
            MemorySegment.copy(data, 0, buf, JAVA_BYTE_LAYOUT, 0, data.length);
            return Calls.checked(WRITE, "write", "fd " + fd, fd, buf, (long) data.length);
        }
    }

    /** A close-on-exec duplicate of {@code fd}. */
    public static int dup(int fd) {
        return fcntl(fd, F_DUPFD_CLOEXEC, 3);
    }

    public static void dup3(int oldFd, int newFd, int flags) {
        Calls.checked(DUP3, "dup3", oldFd + " to " + newFd, oldFd, newFd, flags);
    }

    /** pipe2(2): returns {read end, write end}. */
    public static int[] pipe(int flags) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment fds = arena.allocate(JAVA_INT, 2);
            Calls.checked(PIPE2, "pipe2", null, fds, flags);
            return new int[] {fds.getAtIndex(JAVA_INT, 0), fds.getAtIndex(JAVA_INT, 1)};
        }
    }

    public static void mknod(String path, int mode, long dev) {
        Calls.checked(MKNOD, "mknod", path, path, mode, dev);
    }

    /** mkdir(2), as mkdirat relative to the working directory; a failure names "mkdir", as Go's does. */
    public static void mkdir(String path, int mode) {
        Calls.checked(MKDIRAT, "mkdir", path, AT_FDCWD, path, mode);
    }

    public static void mkfifo(String path, int permissions) {
        mknod(path, S_IFIFO | permissions, 0);
    }

    public static void fchown(int fd, int uid, int gid) {
        Calls.checked(FCHOWN, "fchown", "fd " + fd, fd, uid, gid);
    }

    public static void chown(String path, int uid, int gid) {
        Calls.checked(CHOWN, "chown", path, path, uid, gid);
    }

    /** Linux's makedev for the 32-bit major/minor encoding. */
    public static long makedev(long major, long minor) {
        return ((major & 0xfffff000L) << 32) | ((major & 0xfffL) << 8)
                | ((minor & 0xffffff00L) << 12) | (minor & 0xffL);
    }

    /** poll(2) on one descriptor; returns the revents, or 0 on timeout. */
    public static short poll(int fd, short events, int timeoutMillis) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment pfd = arena.allocate(POLLFD_SIZE, 4);
            pfd.set(JAVA_INT, POLL_FD, fd);
            pfd.set(JAVA_SHORT, POLL_EVENTS, events);
            while (true) {
                try {
                    int n = Calls.checked(POLL, "poll", "fd " + fd, pfd, 1L, timeoutMillis);
                    return n == 0 ? 0 : pfd.get(JAVA_SHORT, POLL_REVENTS);
                } catch (ErrnoException e) {
                    if (!e.is(Errno.EINTR)) {
                        throw e;
                    }
                }
            }
        }
    }

    /**
     * poll(2) on several descriptors at once: {@code revents[i]} is set for {@code fds[i]} (0 when it
     * has nothing). Returns how many have something, 0 on timeout ({@code timeoutMillis} -1: none).
     * EINTR is retried with the whole timeout.
     */
    public static int poll(int[] fds, short[] events, short[] revents, int timeoutMillis) {
        if (fds.length != events.length || fds.length != revents.length) {
            throw new IllegalArgumentException("poll: " + fds.length + " descriptors, " + events.length + " event masks, "
                    + revents.length + " results");
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment pfds = arena.allocate(POLLFD_SIZE * Math.max(1, fds.length), 4);
            for (int i = 0; i < fds.length; i++) {
                pfds.set(JAVA_INT, i * POLLFD_SIZE + POLL_FD, fds[i]);
                pfds.set(JAVA_SHORT, i * POLLFD_SIZE + POLL_EVENTS, events[i]);
            }
            while (true) {
                try {
                    int n = Calls.checked(POLL, "poll", fds.length + " descriptors", pfds, (long) fds.length, timeoutMillis);
                    for (int i = 0; i < fds.length; i++) {
                        revents[i] = pfds.get(JAVA_SHORT, i * POLLFD_SIZE + POLL_REVENTS);
                    }
                    return n;
                } catch (ErrnoException e) {
                    if (!e.is(Errno.EINTR)) {
                        throw e;
                    }
                }
            }
        }
    }

    public static int fcntl(int fd, int cmd, long arg) {
        return (int) Syscalls.call("fcntl", "fd " + fd, SyscallNumbers.FCNTL, fd, cmd, arg);
    }

    public static int ioctl(int fd, long request, long arg) {
        return (int) Syscalls.call("ioctl", "fd " + fd, SyscallNumbers.IOCTL, fd, request, arg);
    }
}
