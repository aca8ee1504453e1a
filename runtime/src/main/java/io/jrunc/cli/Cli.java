package io.jrunc.cli;

import java.util.List;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Model.PositionalParamSpec;

/**
 * Builders for jrunc's picocli model, declared in code rather than with picocli's annotations: every
 * jrunc call is a fresh JVM, and reading annotations makes the JDK generate a dynamic proxy class per
 * annotation type at run time, which the AOT cache cannot hold (docs/PERFORMANCE.md). The labels are
 * the ones picocli derived from the annotated field names ("<bundle>"), as its error messages show them.
 */
final class Cli {
    private Cli() {}

    /** A command whose user object (the Callable picocli executes) is {@code command}, not inspected. */
    static CommandSpec command(Object command, String name, String description, ArgSpec... args) {
        CommandSpec spec = CommandSpec.wrapWithoutInspection(command);
        spec.name(name);
        spec.usageMessage().description(description);
        for (ArgSpec arg : args) {
            if (arg instanceof OptionSpec option) {
                spec.addOption(option);
            } else {
                spec.addPositional((PositionalParamSpec) arg);
            }
        }
        return spec;
    }

    /** A boolean flag (arity 0). */
    static OptionSpec flag(String label, String description, String... names) {
        return option(label, boolean.class, description, names);
    }

    /** An option taking one value of {@code type}; {@code description} may be null. */
    static OptionSpec option(String label, Class<?> type, String description, String... names) {
        return OptionSpec.builder(names).type(type).paramLabel("<" + label + ">")
                .description(description == null ? new String[0] : new String[] {description}).build();
    }

    /** A repeatable option collecting its values of {@code element} in a list. */
    static OptionSpec list(String label, Class<?> element, String... names) {
        return OptionSpec.builder(names).type(List.class).auxiliaryTypes(element).paramLabel("<" + label + ">")
                .build();
    }

    /** The container id: the first positional parameter, optional for picocli (Ids.require words the error). */
    static PositionalParamSpec id() {
        return positional("0", "0..1", "id");
    }

    /** A single positional parameter at {@code index}. */
    static PositionalParamSpec positional(String index, String arity, String label) {
        return PositionalParamSpec.builder().index(index).arity(arity).type(String.class)
                .paramLabel("<" + label + ">").build();
    }

    /** All positional parameters from index 1 on, as a list of strings. */
    static PositionalParamSpec rest(String label) {
        return PositionalParamSpec.builder().index("1..*").arity("0..1").type(List.class).auxiliaryTypes(String.class)
                .paramLabel("<" + label + ">").build();
    }
}
