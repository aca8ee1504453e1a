package io.jrunc.bindings;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/**
 * A libc function, called through one shared downcall shape: seven 64-bit integer arguments and a
 * 64-bit integer result, with errno captured.
 *
 * <p>Why one shape: the linker generates and caches a stub per (descriptor, options), and generating
 * one costs tens of milliseconds of method-handle spinning on a cold JVM. With a descriptor per
 * function, every jrunc call paid that for each of the ~40 functions it touches; with one shape it
 * pays once. This is sound for the functions linked here, with at most seven integer or pointer
 * parameters: on x86-64 (System V) and aarch64 (AAPCS64) such arguments travel in general registers
 * (the seventh on x86-64 on the stack, which the caller owns) whether declared int, long or pointer,
 * extra arguments land where the callee never looks, and an int result is the low half of the result
 * register, so {@link #call} narrows it according to the declared C signature. The one variadic
 * function, syscall(2), is glibc assembly that only moves registers (it reads neither %al nor a
 * va_list), so the fixed shape serves it too. {@code declared} keeps that signature: tests compare it
 * with jextract's output, and the constructor refuses anything the shape cannot carry.
 */
final class NativeFunction {
    static final int MAX_ARGS = 7;
    private static final FunctionDescriptor SHAPE = FunctionDescriptor.of(ValueLayout.JAVA_LONG,
            ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG,
            ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG);

    final String name;
    final FunctionDescriptor declared;
    private final MethodHandle handle;
    private final boolean intResult;

    NativeFunction(String name, FunctionDescriptor declared) {
        if (declared.argumentLayouts().size() > MAX_ARGS) {
            throw new IllegalArgumentException(name + ": more than " + MAX_ARGS + " arguments");
        }
        for (MemoryLayout arg : declared.argumentLayouts()) {
            if (!(arg instanceof ValueLayout v) || v.carrier() == float.class || v.carrier() == double.class) {
                throw new IllegalArgumentException(name + ": only integer and pointer arguments fit the shared shape");
            }
        }
        this.name = name;
        this.declared = declared;
        this.intResult = declared.returnLayout().map(l -> l.byteSize() == 4).orElse(false);
        this.handle = Downcall.linkShared(name, SHAPE);
    }

    /**
     * Calls the function; Java strings become C strings in {@code arena}, segments their address,
     * numbers their value, null a NULL pointer. errno is left in {@code state}.
     */
    long call(MemorySegment state, Arena arena, Object... args) {
        long[] a = new long[MAX_ARGS];
        for (int i = 0; i < args.length; i++) {
            a[i] = value(args[i], arena);
        }
        long r = invoke(state, a[0], a[1], a[2], a[3], a[4], a[5], a[6]);
        return intResult ? (int) r : r;
    }

    /**
     * One argument as a 64-bit value. Tested with instanceof rather than a pattern switch: a switch
     * over types is linked at its first run by a class spun and verified at run time, which no AOT
     * cache holds (tens of milliseconds of a cold JVM under emulation, on the first downcall).
     */
    private long value(Object arg, Arena arena) {
        if (arg == null) {
            return 0L;
        } else if (arg instanceof String s) {
            return arena.allocateFrom(s).address();
        } else if (arg instanceof MemorySegment m) {
            return m.address();
        } else if (arg instanceof Long l) {
            return l;
        } else if (arg instanceof Integer n) {
            return n;
        } else if (arg instanceof Short s) {
            return s;
        } else if (arg instanceof Byte b) {
            return b;
        }
        throw new IllegalArgumentException(name + ": unsupported argument " + arg.getClass());
    }

    /** The raw call, every argument already a 64-bit value; errno is left in {@code state}. */
    long invoke(MemorySegment state, long a0, long a1, long a2, long a3, long a4, long a5, long a6) {
        try {
            return (long) handle.invokeExact(state, a0, a1, a2, a3, a4, a5, a6);
        } catch (Throwable t) {
            throw new AssertionError(name, t);
        }
    }
}
