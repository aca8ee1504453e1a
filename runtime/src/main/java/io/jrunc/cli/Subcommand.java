package io.jrunc.cli;

import java.util.List;
import java.util.concurrent.Callable;

/**
 * A jrunc subcommand: its name, flags and help as runc has them, its parsed values copied into its
 * fields by {@link #read}, then {@link #call()}.
 */
abstract class Subcommand implements Callable<Integer> {
    /** The global flags. */
    Main main;

    abstract String name();

    /** The one-line description `jrunc --help` lists. */
    abstract String description();

    /** What follows the flags, as `--help` shows it. */
    String argsUsage() {
        return "<container-id>";
    }

    List<Flag> flags() {
        return List.of();
    }

    /**
     * How many arguments may follow the flags, as runc's checkArgs has it: 1 for the commands that take
     * a container id, -1 for no limit (a process's arguments follow the id).
     */
    int maxArguments() {
        return 1;
    }

    /** Whether {@link #maxArguments} is also the minimum (runc's exactArgs rather than maxArgs). */
    boolean exactArguments() {
        return true;
    }

    /**
     * Whether flags given after the arguments count as this command's (urfave/cli's reordering); not
     * for commands whose trailing arguments are a process's own.
     */
    boolean flagsAfterArguments() {
        return true;
    }

    /** Copies what was given on the command line into the fields; fields keep their defaults otherwise. */
    abstract void read(Arguments args);
}
