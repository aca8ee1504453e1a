package io.jrunc.cli;

import java.util.List;

/**
 * One command-line flag as runc declares it (urfave/cli over Go's flag package): a primary name, aliases,
 * what it takes, and the usage line `--help` shows. Every name is accepted with one dash or two, as Go's
 * flag package does.
 */
record Flag(List<String> names, Kind kind, String usage, boolean hidden) {
    enum Kind {
        /** Takes no value; {@code --name=false} is accepted as Go's flag package does. */
        BOOL,
        /** Takes one value, the last given wins. */
        STRING,
        /** Takes one value that must be a decimal integer (checked while parsing, with Go's wording). */
        INT,
        /** As INT, and not negative: runc's cli.UintFlag (--preserve-fds). */
        UINT,
        /** Repeatable; every value is kept, in order. */
        LIST
    }

    static Flag bool(String names, String usage) {
        return new Flag(split(names), Kind.BOOL, usage, false);
    }

    static Flag string(String names, String usage) {
        return new Flag(split(names), Kind.STRING, usage, false);
    }

    static Flag integer(String names, String usage) {
        return new Flag(split(names), Kind.INT, usage, false);
    }

    static Flag unsigned(String names, String usage) {
        return new Flag(split(names), Kind.UINT, usage, false);
    }

    static Flag list(String names, String usage) {
        return new Flag(split(names), Kind.LIST, usage, false);
    }

    /** The same flag, left out of `--help` (runc hides obsolete or unsupported ones the same way). */
    Flag hide() {
        return new Flag(names, kind, usage, true);
    }

    String name() {
        return names.get(0);
    }

    boolean takesValue() {
        return kind != Kind.BOOL;
    }

    /** "bundle, b" as runc writes it: the primary name first. (No String.split: ", " would be a regex.) */
    private static List<String> split(String names) {
        int comma = names.indexOf(", ");
        return comma < 0 ? List.of(names) : List.of(names.substring(0, comma), names.substring(comma + 2));
    }
}
