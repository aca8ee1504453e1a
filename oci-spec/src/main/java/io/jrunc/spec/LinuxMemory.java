package io.jrunc.spec;

/**
 * Memory controller settings (config-linux.md, Memory). Byte values are int64 where {@code -1} means
 * unlimited. Absent and {@code 0} differ: {@code swap: 0} and no swap at all convert to different cgroup
 * writes.
 *
 * @param swap memory plus swap, in bytes (cgroup v1 semantics).
 * @param swappiness 0 to 100; all-ones (-1) is old Docker's way of saying unset.
 */
public record LinuxMemory(
        Long limit,
        Long reservation,
        Long swap,
        Long kernel,
        Long kernelTCP,
        @Uint64 Long swappiness,
        Boolean disableOOMKiller,
        Boolean useHierarchy,
        Boolean checkBeforeUpdate) {
}
