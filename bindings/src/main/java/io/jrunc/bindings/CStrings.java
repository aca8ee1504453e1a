package io.jrunc.bindings;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;

/** C string arrays, as execve and posix_spawn take an argv or envp. */
final class CStrings {
    private CStrings() {}

    /**
     * A NULL-terminated array of C strings in {@code arena} (the allocation is zeroed, so the last slot
     * is NULL). The addresses are written as longs: on a cold JVM the first access through the ADDRESS
     * layout links its method handles, which measured 4.6 to 8.8 ms per create here, while JAVA_LONG
     * accesses are linked already.
     */
    static MemorySegment array(Arena arena, List<String> values) {
        MemorySegment array = arena.allocate(8L * (values.size() + 1), 8);
        for (int i = 0; i < values.size(); i++) {
            array.set(JAVA_LONG, 8L * i, arena.allocateFrom(values.get(i)).address());
        }
        return array;
    }
}
