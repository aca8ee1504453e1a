package io.jrunc.seccomp;

import io.jrunc.seccomp.tables.ArchSyscallTable;

/**
 * The generated tables by architecture (io.jrunc.seccomp.tables: GeneratedSyscallTables is written by
 * seccomp/tables/generate.sh from what libseccomp 2.5.4 answers; ArchSyscallTable reads it).
 */
final class SyscallTables {
    private SyscallTables() {}

    static SyscallTable of(Arch arch) {
        return ArchSyscallTable.of(arch);
    }

    /** Whether libseccomp 2.5.4 knows the name at all, on any architecture (runc skips unknown names). */
    static boolean known(String name) {
        return ArchSyscallTable.known(name);
    }

    /** The name's entry in the generated index, or -1 when libseccomp does not know it (one lookup for all architectures). */
    static int entry(String name) {
        return ArchSyscallTable.entry(name);
    }

    /** The number on arch of the name of entry (not -1), or {@link SyscallTable#ABSENT}. */
    static int number(int entry, Arch arch) {
        return ArchSyscallTable.number(entry, arch);
    }

    /** The numbers of the name of entry (-1: all ABSENT) on archs[0 .. count - 1], into out. */
    static void numbers(int entry, Arch[] archs, int count, int[] out) {
        ArchSyscallTable.numbers(entry, archs, count, out);
    }

    /** x86's multiplexer pseudo number of the name of entry (not -1), negated: 101 to 120 (socketcall), 201 to 224 (ipc), else 0. */
    static int x86Multiplexer(int entry) {
        return ArchSyscallTable.x86Multiplexer(entry);
    }
}
