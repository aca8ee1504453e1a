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
 * Links libc functions. Every handle captures errno: generated downcalls never do, and reading errno
 * after a call is unreliable because the JVM may run native code in between, so each call passes a
 * segment the linker fills with errno right after the call.
 *
 * <p>Only two downcall shapes exist in the whole facade: the shared one of {@link NativeFunction} and
 * the variadic {@code syscall} of {@link Syscalls}. Each distinct shape costs a generated stub on a
 * cold JVM, and every jrunc command starts cold.
 */
final class Downcall {
    private Downcall() {}

    static {
        NativeAccess.markUsed(); // before anything can be linked, whichever way
    }

    static final Linker LINKER = Linker.nativeLinker();
    static final StructLayout CALL_STATE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO =
            CALL_STATE.varHandle(MemoryLayout.PathElement.groupElement("errno"));
    private static final Linker.Option CAPTURE_ERRNO = Linker.Option.captureCallState("errno");

    static MemorySegment address(String symbol) {
        return LINKER.defaultLookup().find(symbol)
                .orElseThrow(() -> new UnsatisfiedLinkError("libc has no symbol " + symbol));
    }

    /** A function with the declared C signature {@code declared}, called through the shared shape. */
    static NativeFunction function(String symbol, FunctionDescriptor declared) {
        return new NativeFunction(symbol, declared);
    }

    /** A handle of {@code shape} whose first argument is the call-state segment. */
    static MethodHandle linkShared(String symbol, FunctionDescriptor shape, Linker.Option... options) {
        Linker.Option[] all = new Linker.Option[options.length + 1];
        all[0] = CAPTURE_ERRNO;
        System.arraycopy(options, 0, all, 1, options.length);
        return LINKER.downcallHandle(address(symbol), shape, all);
    }

    static MemorySegment errnoSegment(Arena arena) {
        return arena.allocate(CALL_STATE);
    }

    static int errno(MemorySegment state) {
        return (int) ERRNO.get(state, 0L);
    }
}
