package io.jrunc.spec;

/**
 * net_prio priority of one interface.
 *
 * @param priority uint32.
 */
public record LinuxInterfacePriority(
        String name,
        Long priority) {
}
