package io.jrunc.seccomp.oracle;

import io.jrunc.seccomp.SeccompData;
import io.jrunc.spec.LinuxSeccomp;
import io.jrunc.spec.LinuxSyscall;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * runc 1.1.5's -ENOSYS stub (libcontainer/seccomp/patchbpf/enosys_linux.go), as a decision rather than
 * as code: runc prepends a program that returns {@code SCMP_ACT_ERRNO(ENOSYS)} (0x00050026) for syscall
 * numbers above the highest the profile names, so that a newer syscall than the profile knows fails with
 * ENOSYS (and libc falls back) instead of with the default action. The full decision runc loads is
 * {@code enosys(data) ? 0x00050026 : libseccomp's program(data)}.
 *
 * <p>Exactly, in 1.1.5:
 * <ul>
 *   <li>No stub when the default action is ALLOW, LOG or TRACE (isAllowAction), nor when
 *       {@code defaultErrnoRet} equals the number 0x00050026 (runc compares the errno with the whole
 *       SCMP_ACT_ERRNO(ENOSYS) value, so {@code defaultErrnoRet: 38} does not skip it).
 *   <li>Only the architectures the profile lists count (the native one is not added); for each, the
 *       highest number any rule's name resolves to on it ({@code seccomp_syscall_resolve_name_arch}),
 *       over every rule, whatever its action or arguments, including rules matchCall skips for having the
 *       default action. Names unknown there, and libseccomp's negative pseudo-numbers, do not count: on x86 that
 *       includes every socket and SysV IPC call (socket, connect, semop, ...), which libseccomp resolves to
 *       pseudo-numbers there, so only socketcall and ipc themselves (102, 117) raise x86's maximum. x32's numbers carry bit 30. A
 *       highest number of 0 (only {@code read} on x86-64) drops the architecture.
 *   <li>The stub compares seccomp_data.arch with the AUDIT_ARCH value: x86-64 and x32 share one, and bit
 *       30 of the number picks which maximum applies; when only one of the two is listed, the other's
 *       numbers go straight to libseccomp's program. Comparisons are unsigned.
 *   <li>On s390 and s390x, syscall 0 (the multiplexer) also gets ENOSYS.
 *   <li>The host does not matter: archToNative maps every libseccomp architecture to its AUDIT_ARCH value
 *       (ARM's 0x40000028, AArch64's 0xC00000B7, ...) and only the listed ones are looked at, so runc on an
 *       aarch64 or arm host builds the same stub from the same profile (ARM's private calls, from
 *       0x0f0000, raise its maximum like any other number).
 *   <li>Everything else (another architecture, a number at or below the maximum) falls through to
 *       libseccomp's program. Multiplexed calls (x86's socketcall and ipc) are not special: socketcall is
 *       102 like any other number.
 * </ul>
 */
public final class RuncEnosysStub {
    /** SCMP_ACT_ERRNO(ENOSYS). */
    public static final int ERRNO_ENOSYS = 0x00050026;

    private static final int AUDIT_X86_64 = 0xC000003E;
    private static final int X32_BIT = 0x40000000;

    private final boolean skipped;
    /** Highest number by AUDIT_ARCH value, for everything but x86-64 and x32. */
    private final Map<Integer, Integer> highest = new LinkedHashMap<>();
    private Integer highestX8664, highestX32;

    public RuncEnosysStub(LinuxSeccomp profile) {
        String def = profile.defaultAction();
        boolean allowish = "SCMP_ACT_ALLOW".equals(def) || "SCMP_ACT_LOG".equals(def) || "SCMP_ACT_TRACE".equals(def);
        boolean errnoSkip = profile.defaultErrnoRet() != null && profile.defaultErrnoRet() == ERRNO_ENOSYS;
        skipped = allowish || errnoSkip;
        if (skipped) {
            return;
        }
        for (String arch : Libseccomp.list(profile.architectures())) {
            int max = 0;
            for (LinuxSyscall call : Libseccomp.list(profile.syscalls())) {
                for (String name : Libseccomp.list(call.names())) {
                    int nr = Libseccomp.resolveName(arch, name);
                    if (nr != Libseccomp.NR_SCMP_ERROR && nr > max) {
                        max = nr;
                    }
                }
            }
            if (max == 0) {
                continue;
            }
            switch (arch) {
                case "SCMP_ARCH_X86_64" -> highestX8664 = max;
                case "SCMP_ARCH_X32" -> highestX32 = max;
                default -> highest.put(audit(arch), max);
            }
        }
    }

    /** The AUDIT_ARCH value the kernel reports for a libseccomp architecture (x32's is x86-64's). */
    private static int audit(String arch) {
        return "SCMP_ARCH_X32".equals(arch) ? AUDIT_X86_64 : Libseccomp.ARCHES.get(arch);
    }

    /** Whether runc's stub answers ENOSYS before libseccomp's program runs. */
    public boolean enosys(SeccompData data) {
        if (skipped) {
            return false;
        }
        int nr = data.nr();
        if (data.arch() == AUDIT_X86_64) {
            Integer max = (nr & X32_BIT) != 0 ? highestX32 : highestX8664;
            return max != null && Integer.compareUnsigned(nr, max) > 0;
        }
        Integer max = highest.get(data.arch());
        if (max == null) {
            return false;
        }
        boolean s390 = data.arch() == Libseccomp.ARCHES.get("SCMP_ARCH_S390")
                || data.arch() == Libseccomp.ARCHES.get("SCMP_ARCH_S390X");
        return (s390 && nr == 0) || Integer.compareUnsigned(nr, max) > 0;
    }

    /** runc's decision: the stub's ENOSYS, or what the rest of the program returns. */
    public int decide(SeccompData data, int libseccompDecision) {
        return enosys(data) ? ERRNO_ENOSYS : libseccompDecision;
    }

    public boolean skipped() {
        return skipped;
    }

    @Override
    public String toString() {
        return skipped ? "no stub" : "stub{x86_64<=" + highestX8664 + ", x32<=" + highestX32 + ", " + highest + "}";
    }
}
