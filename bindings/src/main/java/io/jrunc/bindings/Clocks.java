package io.jrunc.bindings;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import io.jrunc.bindings.c.Libc;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;

/**
 * clock_settime(2) of the system's wall clock. Used by the guest agent (jrunc-vminit), whose VM may
 * wake from a saved state with the clock it had when saved; never by the jrunc binary. Needs
 * CAP_SYS_TIME. struct timespec on 64-bit Linux: tv_sec at 0, tv_nsec at 8.
 */
public final class Clocks {
    private Clocks() {}

    public static final int CLOCK_REALTIME = Libc.CLOCK_REALTIME();

    // struct timespec (literals, checked against the generated layout by FacadeMatchesGeneratedTest)
    static final long TIMESPEC_SIZE = 16, TV_SEC = 0, TV_NSEC = 8;

    private static final NativeFunction CLOCK_SETTIME = Downcall.function("clock_settime",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS));

    /** Sets CLOCK_REALTIME to {@code epochNanos} nanoseconds since 1970-01-01T00:00:00Z. */
    public static void setRealtime(long epochNanos) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment ts = arena.allocate(TIMESPEC_SIZE, 8);
            ts.set(JAVA_LONG, TV_SEC, Math.floorDiv(epochNanos, 1_000_000_000L));
            ts.set(JAVA_LONG, TV_NSEC, Math.floorMod(epochNanos, 1_000_000_000L));
            Calls.checked(CLOCK_SETTIME, "clock_settime", "CLOCK_REALTIME", CLOCK_REALTIME, ts);
        }
    }
}
