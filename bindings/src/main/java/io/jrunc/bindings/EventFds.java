package io.jrunc.bindings;

import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.FunctionDescriptor;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * eventfd(2): a kernel counter behind a descriptor, readable (POLLIN) while it is not zero. The cgroup
 * v1 memory controller signals one registered in {@code cgroup.event_control} at each OOM of the group,
 * and a thread that waits on several descriptors with poll(2) can be woken by writing to one of its own.
 */
public final class EventFds {
    private EventFds() {}

    public static final int EFD_SEMAPHORE = 1, EFD_NONBLOCK = 04000, EFD_CLOEXEC = 02000000;

    private static final NativeFunction EVENTFD = Downcall.function("eventfd",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT));

    /** A new eventfd with the counter at 0, close-on-exec and non-blocking (a read of 0 is EAGAIN). */
    public static int create() {
        return Calls.checked(EVENTFD, "eventfd", "", 0, EFD_CLOEXEC | EFD_NONBLOCK);
    }

    /** Adds 1 to the counter: whoever polls the descriptor wakes. */
    public static void signal(int fd) {
        FileDescriptors.write(fd, ByteBuffer.allocate(8).order(ByteOrder.nativeOrder()).putLong(1).array());
    }

    /** Reads the counter and sets it to 0: the number of signals since the last drain (0 if none). */
    public static long drain(int fd) {
        byte[] value = new byte[8];
        try {
            FileDescriptors.read(fd, value, 8);
        } catch (ErrnoException e) {
            if (e.is(Errno.EAGAIN)) {
                return 0;
            }
            throw e;
        }
        return ByteBuffer.wrap(value).order(ByteOrder.nativeOrder()).getLong();
    }
}
