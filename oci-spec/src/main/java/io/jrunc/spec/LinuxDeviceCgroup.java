package io.jrunc.spec;

/**
 * One device-controller rule (config-linux.md, Allowed Device list).
 *
 * @param allow absent reads as deny, as Go's zero value does.
 * @param type {@code a}, {@code c} or {@code b}; absent means all.
 * @param major absent means any.
 * @param minor absent means any.
 * @param access a combination of {@code r}, {@code w}, {@code m}.
 */
public record LinuxDeviceCgroup(
        Boolean allow,
        String type,
        Long major,
        Long minor,
        String access) {
}
