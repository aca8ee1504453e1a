package io.jrunc.bindings;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;

/**
 * Raw system calls through glibc's variadic {@code syscall(2)}, for calls glibc has no wrapper for
 * (pivot_root, pidfd_open, openat2) and for calls whose glibc wrapper does the wrong thing here:
 * glibc's setresuid/setresgid/setgroups change the credentials of every thread in the process, while
 * the raw system call changes only the calling thread's, which is what the container thread needs.
 *
 * <p>All arguments are passed as 64-bit values, which is how the x86-64 and aarch64 calling conventions
 * pass integers and pointers anyway; syscall goes through the facade's one shared downcall shape
 * ({@link NativeFunction} says why that is sound for it).
 */
public final class Syscalls {
    private Syscalls() {}

    private static final NativeFunction SYSCALL = Downcall.function("syscall",
            FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG,
                    JAVA_LONG));

    /** Calls {@code syscall(nr, args...)}; throws on -1 with the errno the call set. */
    public static long call(String name, String subject, long nr, long... args) {
        long[] a = new long[6];
        System.arraycopy(args, 0, a, 0, args.length);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = Downcall.errnoSegment(arena);
            long r = SYSCALL.invoke(state, nr, a[0], a[1], a[2], a[3], a[4], a[5]);
            if (r == -1) {
                throw new ErrnoException(name, Downcall.errno(state), subject);
            }
            return r;
        } catch (ErrnoException e) {
            throw e;
        } catch (Throwable t) {
            throw new AssertionError("syscall " + name, t);
        }
    }

    public static int gettid() {
        return (int) call("gettid", null, SyscallNumbers.GETTID);
    }
}
