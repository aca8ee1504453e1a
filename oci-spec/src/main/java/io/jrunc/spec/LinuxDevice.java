package io.jrunc.spec;

/**
 * A device node to create in the container (config-linux.md, Devices).
 *
 * @param type {@code c}, {@code b}, {@code u} or {@code p}.
 * @param fileMode permission bits as a decimal number (uint32).
 */
public record LinuxDevice(
        String path,
        String type,
        Long major,
        Long minor,
        Long fileMode,
        Long uid,
        Long gid) {
}
