package io.jrunc.bindings;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;

/**
 * AF_VSOCK stream sockets, which Java has no channel for: the guest agent listens on a port, the host
 * connects to the guest's context id. Reads and writes go through {@link FileDescriptors}.
 * struct sockaddr_vm (linux/vm_sockets.h, 16 bytes): sa_family u16 at 0, reserved u16 at 2, port u32
 * at 4, cid u32 at 8, then 4 bytes of zero. The handles are made when first used: the jrunc binary
 * never needs them.
 */
public final class Vsock {
    private Vsock() {}

    public static final int AF_VSOCK = 40;
    /** VMADDR_CID_ANY, VMADDR_CID_LOCAL (the loopback transport), VMADDR_CID_HOST. */
    public static final int CID_ANY = -1, CID_LOCAL = 1, CID_HOST = 2;
    private static final long SOCKADDR_VM_SIZE = 16;

    private static final class Handles {
        static final NativeFunction SOCKET = Downcall.function("socket",
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT));
        static final NativeFunction BIND = Downcall.function("bind",
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT));
        static final NativeFunction CONNECT = Downcall.function("connect",
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT));
        static final NativeFunction LISTEN = Downcall.function("listen",
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT));
        static final NativeFunction ACCEPT4 = Downcall.function("accept4",
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, ADDRESS, JAVA_INT));
        static final NativeFunction SHUTDOWN = Downcall.function("shutdown",
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT));
    }

    /**
     * shutdown(fd, SHUT_RDWR): wakes a thread blocked reading the socket, which close(2) from another
     * thread does not. Errors (not connected) are ignored: the socket is being closed anyway.
     */
    public static void shutdown(int fd) {
        Calls.value(Handles.SHUTDOWN, fd, 2);
    }

    /** A socket listening on {@code port} of any of this machine's context ids. */
    public static int listen(int port) {
        int fd = socket();
        try (Arena arena = Arena.ofConfined()) {
            Calls.checked(Handles.BIND, "bind", "vsock port " + port, fd, address(arena, CID_ANY, port),
                    (int) SOCKADDR_VM_SIZE);
            Calls.checked(Handles.LISTEN, "listen", "vsock port " + port, fd, 16);
            return fd;
        } catch (RuntimeException e) {
            FileDescriptors.closeQuietly(fd);
            throw e;
        }
    }

    public static int accept(int listener) {
        return Calls.checked(Handles.ACCEPT4, "accept4", "vsock fd " + listener, listener, MemorySegment.NULL,
                MemorySegment.NULL, UnixSockets.SOCK_CLOEXEC);
    }

    public static int connect(int cid, int port) {
        int fd = socket();
        try (Arena arena = Arena.ofConfined()) {
            Calls.checked(Handles.CONNECT, "connect", "vsock " + cid + ":" + port, fd, address(arena, cid, port),
                    (int) SOCKADDR_VM_SIZE);
            return fd;
        } catch (RuntimeException e) {
            FileDescriptors.closeQuietly(fd);
            throw e;
        }
    }

    private static int socket() {
        return Calls.checked(Handles.SOCKET, "socket", "AF_VSOCK", AF_VSOCK,
                UnixSockets.SOCK_STREAM | UnixSockets.SOCK_CLOEXEC, 0);
    }

    private static MemorySegment address(Arena arena, int cid, int port) {
        MemorySegment addr = arena.allocate(SOCKADDR_VM_SIZE, 4);
        addr.set(JAVA_SHORT, 0, (short) AF_VSOCK);
        addr.set(JAVA_INT, 4, port);
        addr.set(JAVA_INT, 8, cid);
        return addr;
    }
}
