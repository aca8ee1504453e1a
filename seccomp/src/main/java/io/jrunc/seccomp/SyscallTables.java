package io.jrunc.seccomp;

/** The generated tables by architecture (see io.jrunc.seccomp.tables). */
final class SyscallTables {
    private SyscallTables() {}

    static SyscallTable of(Arch arch) {
        throw new UnsupportedOperationException("TODO");
    }

    /** Whether libseccomp 2.5.4 knows the name at all, on any architecture (runc skips unknown names). */
    static boolean known(String name) {
        throw new UnsupportedOperationException("TODO");
    }
}
