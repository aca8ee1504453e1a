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

    /** The name's slot in the generated index, or -1 when libseccomp does not know it (one lookup for all architectures). */
    static int slot(String name) {
        return ArchSyscallTable.slot(name);
    }

    /** The number on arch of the name in slot (not -1), or {@link SyscallTable#ABSENT}. */
    static int number(int slot, Arch arch) {
        return ArchSyscallTable.number(slot, arch);
    }
}
