package io.jrunc.cli;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Conversions the commands share when reading their flags. */
final class Cli {
    private Cli() {}

    /** {@code first} followed by {@code more}, as one immutable list. */
    static List<Flag> concat(List<Flag> first, Flag... more) {
        List<Flag> all = new ArrayList<>(first);
        all.addAll(List.of(more));
        return List.copyOf(all);
    }

    /** A path flag's value, or null when the flag was not given. */
    static Path path(String value) {
        return value == null ? null : Path.of(value);
    }
}
