package io.jrunc.spec;

import java.util.List;

/**
 * Capability sets by name, e.g. {@code CAP_KILL} (config.md, Linux Process).
 * An absent set and an empty set are different documents and both are kept.
 */
public record LinuxCapabilities(
        List<String> bounding,
        List<String> effective,
        List<String> inheritable,
        List<String> permitted,
        List<String> ambient) {

    public LinuxCapabilities {
        bounding = Frozen.list(bounding);
        effective = Frozen.list(effective);
        inheritable = Frozen.list(inheritable);
        permitted = Frozen.list(permitted);
        ambient = Frozen.list(ambient);
    }
}
