package io.jrunc.seccomp;

import io.jrunc.seccomp.tables.ArchSyscallTable;

/**
 * The generated tables by architecture (io.jrunc.seccomp.tables: GeneratedSyscallTables is written by
 * seccomp/tables/generate.sh from what libseccomp 2.5.4 answers, ArchSyscallTable parses it on first use).
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
}
