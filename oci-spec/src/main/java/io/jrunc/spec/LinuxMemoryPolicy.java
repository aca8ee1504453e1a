package io.jrunc.spec;

import java.util.List;

/**
 * NUMA memory policy for set_mempolicy(2) (config-linux.md, Memory policy; spec 1.3).
 *
 * @param mode e.g. {@code MPOL_BIND}.
 * @param nodes node list syntax, e.g. {@code 0-3,7}.
 */
public record LinuxMemoryPolicy(
        String mode,
        String nodes,
        List<String> flags) {

    public LinuxMemoryPolicy {
        flags = Frozen.list(flags);
    }
}
