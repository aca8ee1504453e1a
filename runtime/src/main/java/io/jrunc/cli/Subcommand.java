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
     * Whether the arguments after the container id are a process's own ({@code exec ID sh -c x},
     * {@code ps ID -ef}): then there is no limit on them and flags after them stay theirs.
     */
    boolean processArguments() {
        return false;
    }

    /**
     * How many arguments may follow the flags, as runc's checkArgs has it: 1 for the commands that take
     * a container id, -1 for no limit.
     */
    int maxArguments() {
        return processArguments() ? -1 : 1;
    }

    /** Whether {@link #maxArguments} is also the minimum (runc's exactArgs rather than maxArgs). */
    boolean exactArguments() {
        return !processArguments();
    }

    /** Whether flags given after the arguments count as this command's (urfave/cli's reordering). */
    boolean flagsAfterArguments() {
        return !processArguments();
    }

    /** Copies what was given on the command line into the fields; fields keep their defaults otherwise. */
    abstract void read(Arguments args);
}
