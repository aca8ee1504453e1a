package io.jrunc.bindings;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

/**
 * Invokes an errno-capturing handle and turns the C convention (-1 and errno) into an
 * {@link ErrnoException}. Arguments that are Java strings are converted to C strings in a confined
 * arena that lives only for the call.
 */
final class Calls {
    private Calls() {}

    /** Calls a handle returning int; -1 becomes an exception naming {@code call} and {@code subject}. */
    static int checked(MethodHandle handle, String call, String subject, Object... args) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = Downcall.errnoSegment(arena);
            Object[] full = new Object[args.length + 1];
            full[0] = state;
            for (int i = 0; i < args.length; i++) {
                full[i + 1] = args[i] instanceof String s ? arena.allocateFrom(s)
                        : args[i] == null && handle.type().parameterType(i + 1) == MemorySegment.class
                                ? MemorySegment.NULL : args[i];
            }
            Object r = handle.invokeWithArguments(full);
            long value = r instanceof Integer i ? i : (Long) r;
            if (value == -1) {
                throw new ErrnoException(call, Downcall.errno(state), subject);
            }
            return (int) value;
        } catch (ErrnoException | IllegalArgumentException e) {
            throw e;
        } catch (Throwable t) {
            throw new AssertionError(call, t);
        }
    }
}
