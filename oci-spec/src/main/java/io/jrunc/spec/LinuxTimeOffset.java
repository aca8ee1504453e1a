package io.jrunc.spec;

/**
 * A clock offset for a time namespace (config-linux.md, Offset for Time Namespace).
 *
 * @param nanosecs uint32, below one second.
 */
public record LinuxTimeOffset(
        Long secs,
        Long nanosecs) {
}
