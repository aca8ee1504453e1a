package io.jrunc.bindings;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.nio.charset.StandardCharsets;

/**
 * AF_UNIX sockets with SCM_RIGHTS, which java.nio's UnixDomainSocketAddress channels cannot send.
 * Used for the console socket protocol callers implement (go-runc socket.go: one sendmsg carrying the
 * pty name as data and exactly one descriptor as ancillary data).
 * Layouts: struct msghdr (56 bytes), struct cmsghdr (16 bytes + data), struct sockaddr_un (110 bytes).
 * The sizes and offsets below are literals so that using this class does not load the generated
 * layouts (see docs/bindings.md, "Start-up"); {@code FacadeMatchesGeneratedTest} asserts each equals
 * the jextract layout ({@code msghdr.msg_control$offset()} etc.).
 */
public final class UnixSockets {
    private UnixSockets() {}

    public static final int AF_UNIX = 1, SOCK_STREAM = 1, SOCK_SEQPACKET = 5, SOCK_CLOEXEC = 02000000;
    private static final int SOL_SOCKET = 1, SCM_RIGHTS = 1, MSG_CMSG_CLOEXEC = 0x40000000;
    private static final int SUN_PATH_MAX = 108;

    // struct sockaddr_un
    static final long SOCKADDR_UN_SIZE = 110, SUN_FAMILY = 0, SUN_PATH = 2;
    // struct iovec
    static final long IOVEC_SIZE = 16, IOV_BASE = 0, IOV_LEN = 8;
    // struct msghdr
    static final long MSGHDR_SIZE = 56, MSG_IOV = 16, MSG_IOVLEN = 24, MSG_CONTROL = 32, MSG_CONTROLLEN = 40;
    // struct cmsghdr; CMSG_DATA is right after the (8-byte aligned) header
    static final long CMSGHDR_SIZE = 16, CMSG_LEN = 0, CMSG_LEVEL = 8, CMSG_TYPE = 12, CMSG_DATA = CMSGHDR_SIZE;
    // CMSG_SPACE(sizeof(int)) and CMSG_LEN(sizeof(int))
    static final long CMSG_SPACE_ONE_FD = CMSGHDR_SIZE + 8, CMSG_LEN_ONE_FD = CMSGHDR_SIZE + 4;

    private static final NativeFunction SOCKET = Downcall.function("socket",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT));
    private static final NativeFunction CONNECT = Downcall.function("connect",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT));
    private static final NativeFunction BIND = Downcall.function("bind",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT));
    private static final NativeFunction LISTEN = Downcall.function("listen",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT));
    private static final NativeFunction ACCEPT4 = Downcall.function("accept4",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, ADDRESS, JAVA_INT));
    private static final NativeFunction SENDMSG = Downcall.function("sendmsg",
            FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_INT));
    private static final NativeFunction RECVMSG = Downcall.function("recvmsg",
            FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_INT));
    private static final NativeFunction SOCKETPAIR = Downcall.function("socketpair",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, ADDRESS));

    public static int connect(String path) {
        int fd = Calls.checked(SOCKET, "socket", path, AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        try (Arena arena = Arena.ofConfined()) {
            Calls.checked(CONNECT, "connect", path, fd, address(arena, path), (int) SOCKADDR_UN_SIZE);
            return fd;
        } catch (RuntimeException e) {
            FileDescriptors.closeQuietly(fd);
            throw e;
        }
    }

    /** A listening stream socket bound to {@code path}. */
    public static int listen(String path) {
        int fd = Calls.checked(SOCKET, "socket", path, AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        try (Arena arena = Arena.ofConfined()) {
            Calls.checked(BIND, "bind", path, fd, address(arena, path), (int) SOCKADDR_UN_SIZE);
            Calls.checked(LISTEN, "listen", path, fd, 16);
            return fd;
        } catch (RuntimeException e) {
            FileDescriptors.closeQuietly(fd);
            throw e;
        }
    }

    public static int accept(int listener) {
        return Calls.checked(ACCEPT4, "accept4", "fd " + listener, listener, MemorySegment.NULL,
                MemorySegment.NULL, SOCK_CLOEXEC);
    }

    /**
     * {@link #accept(int)}, waiting at most {@code timeoutMillis} for a connection; after that an
     * ErrnoException with ETIMEDOUT. For a listener whose client is another process's code: a client
     * that never comes must not hold the caller for ever.
     */
    public static int accept(int listener, int timeoutMillis) {
        awaitReadable(listener, timeoutMillis, "accept4");
        return accept(listener);
    }

    /**
     * {@link #receiveWithFd(int, int)}, waiting at most {@code timeoutMillis} for the message; after
     * that an ErrnoException with ETIMEDOUT, and the socket is left as it was.
     */
    public static Received receiveWithFd(int socket, int maxData, int timeoutMillis) {
        awaitReadable(socket, timeoutMillis, "recvmsg");
        return receiveWithFd(socket, maxData);
    }

    /** Returns once {@code fd} is readable or hung up (the call that follows then answers at once). */
    private static void awaitReadable(int fd, int timeoutMillis, String call) {
        if (FileDescriptors.poll(fd, FileDescriptors.POLLIN, timeoutMillis) == 0) {
            throw new ErrnoException(call, Errno.ETIMEDOUT, "fd " + fd + " (nothing within " + timeoutMillis + " ms)");
        }
    }

    /** {a, b}: a connected pair. */
    public static int[] pair(int type) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment fds = arena.allocate(JAVA_INT, 2);
            Calls.checked(SOCKETPAIR, "socketpair", null, AF_UNIX, type | SOCK_CLOEXEC, 0, fds);
            return new int[] {fds.getAtIndex(JAVA_INT, 0), fds.getAtIndex(JAVA_INT, 1)};
        }
    }

    private static MemorySegment address(Arena arena, String path) {
        byte[] bytes = path.getBytes(StandardCharsets.UTF_8);
        if (bytes.length >= SUN_PATH_MAX) {
            throw new IllegalArgumentException("socket path too long (" + bytes.length + " bytes): " + path);
        }
        MemorySegment addr = arena.allocate(SOCKADDR_UN_SIZE, 2);
        addr.set(JAVA_SHORT, SUN_FAMILY, (short) AF_UNIX);
        MemorySegment.copy(bytes, 0, addr, JAVA_BYTE, SUN_PATH, bytes.length);
        return addr;
    }

    /** One sendmsg: {@code data} as the payload and {@code fd} as the single SCM_RIGHTS descriptor. */
    public static void sendWithFd(int socket, byte[] data, int fd) {
        try (Arena arena = Arena.ofConfined()) {
            Calls.checked(SENDMSG, "sendmsg", "fd " + socket, socket, messageWithFd(arena, data, fd), 0);
        }
    }

    /**
     * The struct msghdr of {@link #sendWithFd}, in {@code arena}: for a libc-only child (LibcChain)
     * that sends a descriptor of its own with sendmsg(2), its memory prepared before the clone.
     */
    public static MemorySegment messageWithFd(Arena arena, byte[] data, int fd) {
        MemorySegment payload = arena.allocate(Math.max(1, data.length));
        MemorySegment.copy(data, 0, payload, JAVA_BYTE, 0, data.length);
        MemorySegment iov = arena.allocate(IOVEC_SIZE, 8);
        iov.set(JAVA_LONG, IOV_BASE, payload.address());
        iov.set(JAVA_LONG, IOV_LEN, data.length);
        MemorySegment control = arena.allocate(CMSG_SPACE_ONE_FD, 8);
        control.set(JAVA_LONG, CMSG_LEN, CMSG_LEN_ONE_FD);
        control.set(JAVA_INT, CMSG_LEVEL, SOL_SOCKET);
        control.set(JAVA_INT, CMSG_TYPE, SCM_RIGHTS);
        control.set(JAVA_INT, CMSG_DATA, fd);
        return message(arena, iov, control, CMSG_SPACE_ONE_FD);
    }

    /** What {@link #receiveWithFd} got: the payload and the descriptor (-1 if none came). */
    public record Received(byte[] data, int fd) {}

    public static Received receiveWithFd(int socket, int maxData) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment payload = arena.allocate(maxData);
            MemorySegment iov = arena.allocate(IOVEC_SIZE, 8);
            iov.set(JAVA_LONG, IOV_BASE, payload.address());
            iov.set(JAVA_LONG, IOV_LEN, maxData);
            MemorySegment control = arena.allocate(64, 8);
            MemorySegment msg = message(arena, iov, control, 64);
            int n = Calls.checked(RECVMSG, "recvmsg", "fd " + socket, socket, msg, MSG_CMSG_CLOEXEC);
            long controlLength = msg.get(JAVA_LONG, MSG_CONTROLLEN);
            int fd = -1;
            if (controlLength >= CMSG_LEN_ONE_FD && control.get(JAVA_INT, CMSG_LEVEL) == SOL_SOCKET
                    && control.get(JAVA_INT, CMSG_TYPE) == SCM_RIGHTS) {
                fd = control.get(JAVA_INT, CMSG_DATA);
            }
            byte[] data = new byte[n];
            MemorySegment.copy(payload, JAVA_BYTE, 0, data, 0, n);
            return new Received(data, fd);
        }
    }

    private static MemorySegment message(Arena arena, MemorySegment iov, MemorySegment control, long controlLength) {
        // Pointers are stored as longs: the first access through the ADDRESS layout costs a cold JVM
        // milliseconds of linking (PosixSpawn#strings), and create sends the console over this path.
        MemorySegment msg = arena.allocate(MSGHDR_SIZE, 8);
        msg.set(JAVA_LONG, MSG_IOV, iov.address());
        msg.set(JAVA_LONG, MSG_IOVLEN, 1);
        msg.set(JAVA_LONG, MSG_CONTROL, control.address());
        msg.set(JAVA_LONG, MSG_CONTROLLEN, controlLength);
        return msg;
    }
}
