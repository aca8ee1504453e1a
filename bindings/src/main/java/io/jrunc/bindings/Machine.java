package io.jrunc.bindings;

import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.FunctionDescriptor;

/**
 * What only a machine's init does: load a kernel module from a file, flush the filesystems, power off.
 * Used by the guest agent (jrunc-vminit), never by the jrunc binary.
 *
 * <p>finit_module has no glibc wrapper and is not among the numbers the generated tables check
 * ({@link SyscallNumbers}), so its numbers are named here: 313 on x86-64
 * (arch/x86/entry/syscalls/syscall_64.tbl), 273 on aarch64 (include/uapi/asm-generic/unistd.h).
 */
public final class Machine {
    private Machine() {}

    private static final long FINIT_MODULE =
            SyscallNumbers.ARCH.equals("aarch64") ? 273 : 313;
    /** linux/reboot.h LINUX_REBOOT_CMD_POWER_OFF (glibc's RB_POWER_OFF). */
    public static final int RB_POWER_OFF = 0x4321fedc;

    private static NativeFunction reboot;
    private static NativeFunction sync;

    /** finit_module(fd, params, 0): loads the module in the open file {@code fd}. */
    public static void finitModule(int fd, String params, String subject) {
        try (java.lang.foreign.Arena arena = java.lang.foreign.Arena.ofConfined()) {
            long p = arena.allocateFrom(params).address();
            Syscalls.call("finit_module", subject, FINIT_MODULE, fd, p, 0);
        }
    }

    /** sync(2). */
    public static synchronized void sync() {
        if (sync == null) {
            sync = Downcall.function("sync", FunctionDescriptor.ofVoid());
        }
        Calls.value(sync);
    }

    /** reboot(2) with {@code cmd}; returns only on failure (which throws). */
    public static synchronized void reboot(int cmd) {
        if (reboot == null) {
            reboot = Downcall.function("reboot", FunctionDescriptor.of(JAVA_INT, JAVA_INT));
        }
        Calls.checked(reboot, "reboot", null, cmd);
    }
}
