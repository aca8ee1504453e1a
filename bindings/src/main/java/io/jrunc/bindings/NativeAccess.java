package io.jrunc.bindings;

/**
 * Whether this process has linked any native function yet. Kept apart from {@link Downcall} on
 * purpose: asking must not itself initialize the linker, whose first use costs a cold JVM tens of
 * milliseconds (docs/PERFORMANCE.md). jrunc's main leaves through _exit only when native code ran.
 */
public final class NativeAccess {
    private NativeAccess() {}

    private static volatile boolean used;

    static void markUsed() {
        used = true;
    }

    public static boolean used() {
        return used;
    }
}
