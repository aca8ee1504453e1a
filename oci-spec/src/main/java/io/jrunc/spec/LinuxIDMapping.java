package io.jrunc.spec;

/**
 * A range of ids mapped into a user namespace or an id-mapped mount (config-linux.md, User namespace
 * mappings).
 * All three are uint32.
 */
public record LinuxIDMapping(
        Long containerID,
        Long hostID,
        Long size) {
}
