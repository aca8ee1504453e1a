package io.jrunc.spec;

/**
 * One resource limit (config.md, POSIX process rlimits). Limits are uint64: {@code -1L} here is
 * RLIM_INFINITY (18446744073709551615 in JSON); see {@link Uint64}.
 *
 * @param type e.g. {@code RLIMIT_NOFILE}.
 */
public record POSIXRlimit(
        String type,
        @Uint64 Long hard,
        @Uint64 Long soft) {
}
