package io.jrunc.cli;

import java.nio.file.Path;

/** Conversions the commands share when reading their flags. */
final class Cli {
    private Cli() {}

    /** A path flag's value, or null when the flag was not given. */
    static Path path(String value) {
        return value == null ? null : Path.of(value);
    }
}
