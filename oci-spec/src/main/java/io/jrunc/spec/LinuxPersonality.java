package io.jrunc.spec;

import java.util.List;

/**
 * Execution domain for personality(2) (config-linux.md, Personality).
 *
 * @param domain {@code LINUX} or {@code LINUX32}.
 */
public record LinuxPersonality(
        String domain,
        List<String> flags) {

    public LinuxPersonality {
        flags = Frozen.list(flags);
    }
}
