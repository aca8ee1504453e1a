package io.jrunc.spec;

import java.util.List;

/**
 * net_cls/net_prio settings (config-linux.md, Network; cgroup v1 only).
 *
 * @param classID uint32.
 */
public record LinuxNetwork(
        Long classID,
        List<LinuxInterfacePriority> priorities) {

    public LinuxNetwork {
        priorities = Frozen.list(priorities);
    }
}
