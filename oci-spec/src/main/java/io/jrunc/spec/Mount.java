package io.jrunc.spec;

import java.util.List;

/**
 * One mount, applied in list order (config.md, Mounts; POSIX-platform mounts).
 *
 * @param destination absolute path inside the container.
 * @param uidMappings id-mapped mount; must come with gidMappings.
 */
public record Mount(
        String destination,
        String type,
        String source,
        List<String> options,
        List<LinuxIDMapping> uidMappings,
        List<LinuxIDMapping> gidMappings) {

    public Mount {
        options = Frozen.list(options);
        uidMappings = Frozen.list(uidMappings);
        gidMappings = Frozen.list(gidMappings);
    }
}
