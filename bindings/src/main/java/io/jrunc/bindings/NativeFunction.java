package io.jrunc.bindings;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/**
 * A libc function, called through one shared downcall shape: six 64-bit integer arguments and a
 * 64-bit integer result, with errno captured.
 *
 * <p>Why one shape: the linker generates and caches a stub per (descriptor, options), and generating
 * one costs tens of milliseconds of method-handle spinning on a cold JVM. With a descriptor per
 * function, every jrunc call paid that for each of the ~40 functions it touches; with one shape it
 * pays once. This is sound for the functions linked here, all non-variadic with at most six integer
 * or pointer parameters: on x86-64 (System V) and aarch64 (AAPCS64) such arguments travel in general
 * registers whether declared int, long or pointer, extra arguments land in registers the callee
 * ignores, and an int result is the low half of the result register, so {@link #call} narrows it
 * according to the declared C signature. {@code declared} keeps that signature: tests compare it
 * with jextract's output, and the constructor refuses anything the shape cannot carry.
 */
final class NativeFunction {
    static final int MAX_ARGS = 6;
    private static final FunctionDescriptor SHAPE = FunctionDescriptor.of(ValueLayout.JAVA_LONG,
            ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG,
            ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG);

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
            a[i] = switch (args[i]) {
                case null -> 0L;
                case String s -> arena.allocateFrom(s).address();
                case MemorySegment m -> m.address();
                case Long l -> l;
                case Integer n -> n;
                case Short s -> s;
                case Byte b -> b;
                default -> throw new IllegalArgumentException(name + ": unsupported argument " + args[i].getClass());
            };
        }
        long r;
        try {
            r = (long) handle.invokeExact(state, a[0], a[1], a[2], a[3], a[4], a[5]);
        } catch (Throwable t) {
            throw new AssertionError(name, t);
        }
        return intResult ? (int) r : r;
    }
}
