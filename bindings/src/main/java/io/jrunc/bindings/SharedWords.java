package io.jrunc.bindings;

import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;

/**
 * A few 32-bit words of this JVM's memory that a {@link LibcChain}'s child writes and any thread of the
 * JVM reads. The child shares the JVM's memory (CLONE_VM), so a step such as {@code memset(address, 1, 4)}
 * or {@code memcpy(address, errnoLocation, 4)} is seen here at once: that is how a chain, whose steps
 * return nothing to anyone, reports what it did. Zeroed when made; freed by {@link #close}, which the
 * owner calls only once the child can no longer write (it has exec'd, or died and been waited for).
 */
public final class SharedWords implements AutoCloseable {
    private static final VarHandle WORD = JAVA_INT.varHandle();

    private final Arena arena = Arena.ofShared();
    private final MemorySegment words;

    public SharedWords(int count) {
        words = arena.allocate(4L * count, 8);
    }

    /** The address of word {@code index}, for a step's arguments. */
    public long address(int index) {
        return words.asSlice(4L * index, 4).address();
    }

    /** Word {@code index} as the child last wrote it. */
    public int get(int index) {
        return (int) WORD.getVolatile(words, 4L * index);
    }

    @Override
    public void close() {
        arena.close();
    }
}
