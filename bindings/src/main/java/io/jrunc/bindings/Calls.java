package io.jrunc.bindings;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * Calls a {@link NativeFunction} and turns the C conventions into Java: -1 with errno becomes an
 * {@link ErrnoException}; functions that return an error number (the posix_spawn family) are
 * checked by their callers. Strings passed as arguments live only for the call.
 */
final class Calls {
    private Calls() {}

    /** Calls {@code fn}; -1 becomes an exception naming {@code call} and {@code subject}. */
    static long checkedLong(NativeFunction fn, String call, String subject, Object... args) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = Downcall.errnoSegment(arena);
            long value = fn.call(state, arena, args);
            if (value == -1) {
                throw new ErrnoException(call, Downcall.errno(state), subject);
            }
            return value;
        }
    }

    static int checked(NativeFunction fn, String call, String subject, Object... args) {
        return (int) checkedLong(fn, call, subject, args);
    }

    /** Calls {@code fn} and returns its result as is. */
    static long value(NativeFunction fn, Object... args) {
        try (Arena arena = Arena.ofConfined()) {
            return fn.call(Downcall.errnoSegment(arena), arena, args);
        }
    }
}
