package io.jrunc.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParseResult;

/**
 * A jrunc subcommand: its picocli model built in code (Cli, for start-up) and its parsed values copied
 * into its fields before picocli calls {@link #call()}.
 */
abstract class Subcommand implements Callable<Integer> {
    /** The global flags. */
    Main main;

    /** This command's name, options and positional parameters, with this object as what picocli runs. */
    abstract CommandSpec spec();

    /** Copies what was given on the command line into the fields; fields keep their defaults otherwise. */
    abstract void read(ParseResult parsed);
}
