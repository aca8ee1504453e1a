package io.jrunc.spec;

/**
 * A terminal size in characters (config.md, consoleSize; Go type {@code Box}).
 */
public record Box(
        Integer height,
        Integer width) {
}
