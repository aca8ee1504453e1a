package io.jrunc.seccomp;

import java.util.Set;

/**
 * One architecture's syscall names and numbers as libseccomp 2.5.4 knows them (generated, never edited
 * by hand: see docs/seccomp.md). Numbers are what the kernel puts in {@code seccomp_data.nr}: x32's
 * include {@link Arch#X32_SYSCALL_BIT}.
 */
public interface SyscallTable {
    /** Returned by {@link #number} for a name this architecture does not have. */
    int ABSENT = -1;

    Arch arch();

    /** The syscall's number on this architecture, or {@link #ABSENT}. */
    int number(String name);

    /** The name of syscall {@code nr}, or null. */
    String name(int nr);

    /** Every name this architecture has. */
    Set<String> names();

    /**
     * The highest real syscall number on this architecture (x32's includes {@link Arch#X32_SYSCALL_BIT};
     * ARM's is one of its private calls at 0x0f0000 and up), for a compiler that treats numbers above
     * every known one specially. The default scans {@link #names}; the generated tables know it.
     */
    default int highest() {
        return names().stream().mapToInt(this::number).max().orElse(ABSENT);
    }
}
