package io.jrunc.bindings;

/**
 * System call numbers this project calls directly, per architecture. They differ between
 * architectures (pivot_root is 155 on x86-64 and 41 on aarch64) and glibc's headers only describe the
 * architecture they were generated on, so they are named here explicitly and chosen at start-up.
 * Sources: arch/x86/entry/syscalls/syscall_64.tbl and include/uapi/asm-generic/unistd.h.
 * The generated {@code Libc.SYS_*} constants are x86-64 only, so they cannot replace this table;
 * {@code FacadeMatchesGeneratedTest} checks the x86-64 column against them and the aarch64 column
 * against the installed asm-generic/unistd.h.
 */
public final class SyscallNumbers {
    private SyscallNumbers() {}

    public static final String ARCH = System.getProperty("os.arch");
    private static final boolean X86_64 = ARCH.equals("amd64") || ARCH.equals("x86_64");
    private static final boolean AARCH64 = ARCH.equals("aarch64");

    static {
        if (!X86_64 && !AARCH64) {
            throw new ExceptionInInitializerError("unsupported architecture " + ARCH);
        }
    }

    public static final long PIVOT_ROOT = X86_64 ? 155 : 41;
    public static final long SETRESUID = X86_64 ? 117 : 147;
    public static final long SETRESGID = X86_64 ? 119 : 149;
    public static final long SETGROUPS = X86_64 ? 116 : 159;
    public static final long CAPGET = X86_64 ? 125 : 90;
    public static final long CAPSET = X86_64 ? 126 : 91;
    public static final long GETTID = X86_64 ? 186 : 178;
    public static final long IOCTL = X86_64 ? 16 : 29;
    public static final long OPENAT = X86_64 ? 257 : 56;
    public static final long PRCTL = X86_64 ? 157 : 167;
    public static final long KEYCTL = X86_64 ? 250 : 219;
    public static final long FCNTL = X86_64 ? 72 : 25;
    public static final long SECCOMP = X86_64 ? 317 : 277;
    public static final long BPF = X86_64 ? 321 : 280;
    // Descriptor-relative file calls (RootedFiles): the raw calls, so that every one of them captures
    // errno the same way and needs no glibc wrapper (statx and renameat2 are recent in glibc).
    public static final long MKDIRAT = X86_64 ? 258 : 34;
    public static final long FCHOWNAT = X86_64 ? 260 : 54;
    public static final long UNLINKAT = X86_64 ? 263 : 35;
    public static final long SYMLINKAT = X86_64 ? 266 : 36;
    public static final long READLINKAT = X86_64 ? 267 : 78;
    public static final long FCHMOD = X86_64 ? 91 : 52;
    public static final long UTIMENSAT = X86_64 ? 280 : 88;
    public static final long RENAMEAT2 = X86_64 ? 316 : 276;
    public static final long STATX = X86_64 ? 332 : 291;
    // Numbers from 424 up are shared by every architecture (asm-generic).
    public static final long PIDFD_SEND_SIGNAL = 424;
    public static final long PIDFD_OPEN = 434;
    public static final long CLOSE_RANGE = 436;
    public static final long OPENAT2 = 437;
    public static final long PIDFD_GETFD = 438;
    public static final long MOUNT_SETATTR = 442;
    // The file-descriptor mount API (asm-generic numbers 428-433, the same on every architecture).
    public static final long OPEN_TREE = 428;
    public static final long MOVE_MOUNT = 429;
    public static final long FSOPEN = 430;
    public static final long FSCONFIG = 431;
    public static final long FSMOUNT = 432;
    public static final long FSPICK = 433;
}
