package io.jrunc.spec;

import java.util.List;

/**
 * Lifecycle hooks by stage (config.md, POSIX-platform Hooks). {@code prestart} is deprecated by the spec
 * but still run by runc.
 */
public record Hooks(
        List<Hook> prestart,
        List<Hook> createRuntime,
        List<Hook> createContainer,
        List<Hook> startContainer,
        List<Hook> poststart,
        List<Hook> poststop) {

    public Hooks {
        prestart = Frozen.list(prestart);
        createRuntime = Frozen.list(createRuntime);
        createContainer = Frozen.list(createContainer);
        startContainer = Frozen.list(startContainer);
        poststart = Frozen.list(poststart);
        poststop = Frozen.list(poststop);
    }
}
