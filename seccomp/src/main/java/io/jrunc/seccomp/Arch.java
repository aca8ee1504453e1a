package io.jrunc.seccomp;

import java.util.Optional;

/**
 * The architectures jrunc has syscall tables for, with the values the kernel puts in
 * {@code seccomp_data.arch} (linux/audit.h). x32 shares x86-64's audit value: the kernel tells its
 * syscalls apart by bit 30 of the syscall number ({@link #X32_SYSCALL_BIT}), which x32 table entries
 * include.
 */
public enum Arch {
    X86_64("SCMP_ARCH_X86_64", 0xC000003E),
    X86("SCMP_ARCH_X86", 0x40000003),
    X32("SCMP_ARCH_X32", 0xC000003E),
    AARCH64("SCMP_ARCH_AARCH64", 0xC00000B7),
    ARM("SCMP_ARCH_ARM", 0x40000028);

    /** __X32_SYSCALL_BIT (arch/x86/include/uapi/asm/unistd.h). */
    public static final int X32_SYSCALL_BIT = 0x40000000;

    private final String specName;
    private final int auditArch;

    Arch(String specName, int auditArch) {
        this.specName = specName;
        this.auditArch = auditArch;
    }

    /** libseccomp's name, as the runtime-spec uses it ({@code SCMP_ARCH_X86_64}). */
    public String specName() {
        return specName;
    }

    /** AUDIT_ARCH_* as seen in seccomp_data.arch. */
    public int auditArch() {
        return auditArch;
    }

    /** This architecture's syscall table (generated from libseccomp's, see docs/seccomp.md). */
    public SyscallTable table() {
        return SyscallTables.of(this);
    }

    public static Optional<Arch> bySpecName(String name) {
        for (Arch arch : values()) {
            if (arch.specName.equals(name)) {
                return Optional.of(arch);
            }
        }
        return Optional.empty();
    }

    /** The architecture this JVM runs on. */
    public static Arch nativeArch() {
        return switch (System.getProperty("os.arch")) {
            case "amd64", "x86_64" -> X86_64;
            case "aarch64" -> AARCH64;
            case "x86", "i386", "i686" -> X86;
            case "arm" -> ARM;
            default -> throw new IllegalStateException("no seccomp syscall table for " + System.getProperty("os.arch"));
        };
    }
}
