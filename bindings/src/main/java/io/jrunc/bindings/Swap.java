package io.jrunc.bindings;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import io.jrunc.bindings.c.Libc;
import java.lang.foreign.FunctionDescriptor;

/**
 * swapon(2) and swapoff(2). Used by the guest agent (jrunc-vminit) for a pod's swap area, never by the
 * jrunc binary.
 */
public final class Swap {
    private Swap() {}

    /** sys/swap.h: discard the area at swapon and freed clusters while in use. */
    public static final int SWAP_FLAG_DISCARD = Libc.SWAP_FLAG_DISCARD();
    /**
     * include/linux/swap.h SWAP_FLAG_DISCARD_PAGES (0x40000): with SWAP_FLAG_DISCARD, discard freed
     * page clusters while the area is in use, and not the whole area once at swapon (SWAP_FLAG_DISCARD
     * alone does both). glibc's sys/swap.h does not define it, so it is named here.
     */
    public static final int SWAP_FLAG_DISCARD_PAGES = 0x40000;

    private static final NativeFunction SWAPON = Downcall.function("swapon",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT));
    private static final NativeFunction GETPAGESIZE = Downcall.function("getpagesize",
            FunctionDescriptor.of(JAVA_INT));
    private static final NativeFunction SWAPOFF = Downcall.function("swapoff",
            FunctionDescriptor.of(JAVA_INT, ADDRESS));

    public static void swapon(String path, int flags) {
        Calls.checked(SWAPON, "swapon", path, path, flags);
    }

    public static void swapoff(String path) {
        Calls.checked(SWAPOFF, "swapoff", path, path);
    }

    /** getpagesize(2): the running kernel's page size, which a swap header's page must be. */
    public static int pageSize() {
        return (int) Calls.value(GETPAGESIZE);
    }
}
