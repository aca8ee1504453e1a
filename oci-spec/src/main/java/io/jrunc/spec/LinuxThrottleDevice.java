package io.jrunc.spec;

/**
 * Per-device I/O limit, in bytes or operations per second (config-linux.md, Block IO).
 */
public record LinuxThrottleDevice(
        Long major,
        Long minor,
        @Uint64 Long rate) {
}
