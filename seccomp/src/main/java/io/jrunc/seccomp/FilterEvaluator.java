package io.jrunc.seccomp;

/**
 * Runs a seccomp BPF program over one {@link SeccompData}, as the kernel's classic BPF interpreter does
 * for seccomp (net/core/filter.c, seccomp_check_filter's subset: loads of seccomp_data words, ALU, jumps,
 * the scratch memory, returns). The runtime uses it at create to check that the syscalls it makes between
 * loading the filter and execve pass (docs/seccomp.md).
 */
public final class FilterEvaluator {
    private FilterEvaluator() {}

    /** The program's 32-bit return value (SECCOMP_RET_* action in the high bits, data in the low 16). */
    public static int evaluate(Program program, SeccompData data) {
        throw new UnsupportedOperationException("TODO");
    }
}
