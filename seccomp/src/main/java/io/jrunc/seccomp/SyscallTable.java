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
}
