package io.jrunc.spec;

/**
 * Per-device I/O weight; at least one of the weights is required (config-linux.md, Block IO).
 */
public record LinuxWeightDevice(
        Long major,
        Long minor,
        Integer weight,
        Integer leafWeight) {
}
