package io.jrunc.bindings;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;

/**
 * Builds downcall handles that capture errno. Generated downcalls never capture errno, and reading
 * errno after a call is unreliable because the JVM may run native code in between, so every handle
 * that can fail is linked with {@code captureCallState("errno")}: its first parameter is a segment the
 * linker fills with errno right after the call.
 *
 * <p>Handles are created lazily by the holder classes that use them (one static final per function),
 * because creating a handle costs milliseconds and every jrunc command pays JVM start-up.
 */
final class Downcall {
    private Downcall() {}

    static final Linker LINKER = Linker.nativeLinker();
    static final StructLayout CALL_STATE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO =
            CALL_STATE.varHandle(MemoryLayout.PathElement.groupElement("errno"));
    private static final Linker.Option CAPTURE_ERRNO = Linker.Option.captureCallState("errno");

    static MemorySegment address(String symbol) {
        return LINKER.defaultLookup().find(symbol)
                .orElseThrow(() -> new UnsatisfiedLinkError("libc has no symbol " + symbol));
    }

    /** A handle whose first argument is the call-state segment (see {@link #errnoSegment}). */
    static MethodHandle capturing(String symbol, FunctionDescriptor descriptor, Linker.Option... options) {
        Linker.Option[] all = new Linker.Option[options.length + 1];
        all[0] = CAPTURE_ERRNO;
        System.arraycopy(options, 0, all, 1, options.length);
        return LINKER.downcallHandle(address(symbol), descriptor, all);
    }

    /** A handle for a function that cannot fail or reports errors in its return value. */
    static MethodHandle plain(String symbol, FunctionDescriptor descriptor, Linker.Option... options) {
        return LINKER.downcallHandle(address(symbol), descriptor, options);
    }

    static MemorySegment errnoSegment(Arena arena) {
        return arena.allocate(CALL_STATE);
    }

    static int errno(MemorySegment state) {
        return (int) ERRNO.get(state, 0L);
    }
}
