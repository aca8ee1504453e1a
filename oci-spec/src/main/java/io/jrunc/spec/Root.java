package io.jrunc.spec;

/**
 * The container's root filesystem (config.md, Root).
 *
 * @param path relative to the bundle, or absolute; required.
 */
public record Root(
        String path,
        Boolean readonly) {
}
