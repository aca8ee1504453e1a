package io.jrunc.spec;

/**
 * A condition on one syscall argument (config-linux.md, Seccomp args).
 *
 * @param index argument number, 0 to 5.
 * @param valueTwo second operand of SCMP_CMP_MASKED_EQ.
 */
public record LinuxSeccompArg(
        Integer index,
        @Uint64 Long value,
        @Uint64 Long valueTwo,
        String op) {
}
