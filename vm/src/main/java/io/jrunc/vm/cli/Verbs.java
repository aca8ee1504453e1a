package io.jrunc.vm.cli;

import java.util.List;
import java.util.Set;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * Registers a command's subcommands with picocli lazily: only the one the command line names, found
 * as the first argument after the command's own options, is modelled (with its own subcommands the
 * same way). picocli builds its model by reflection over every option of every registered command,
 * which cost a jrunc-vm call most of its time on a cold JVM; a call runs one command. When no known
 * command is named (no argument, `--help`, a misspelt or unknown name), all are registered, so that
 * help lists them and picocli's errors and suggestions are what they were.
 */
final class Verbs {
    private Verbs() {
    }

    /**
     * Adds to {@code cl} the subcommand of {@code commands} that {@code args}, from {@code from} on,
     * names, or all of them. {@code valued}: the command's own options that take a separate value.
     */
    static void register(CommandLine cl, List<Class<?>> commands, Set<String> valued, String[] args, int from) {
        int i = from;
        while (i < args.length && args[i].startsWith("-")) {
            if (args[i].equals("--")) {
                i = args.length;
                break;
            }
            i += valued.contains(args[i]) ? 2 : 1;
        }
        if (i < args.length) {
            for (Class<?> c : commands) {
                if (names(c).contains(args[i])) {
                    CommandLine sub = new CommandLine(instance(c));
                    if (c == PodCommand.class) {
                        register(sub, PodCommand.COMMANDS, Set.of(), args, i + 1);
                    }
                    cl.addSubcommand(sub);
                    return;
                }
            }
        }
        for (Class<?> c : commands) {
            CommandLine sub = new CommandLine(instance(c));
            if (c == PodCommand.class) {
                register(sub, PodCommand.COMMANDS, Set.of(), new String[0], 0);
            }
            cl.addSubcommand(sub);
        }
    }

    private static List<String> names(Class<?> c) {
        Command command = c.getAnnotation(Command.class);
        return command.aliases().length == 0 ? List.of(command.name())
                : java.util.stream.Stream.concat(java.util.stream.Stream.of(command.name()), java.util.Arrays.stream(command.aliases())).toList();
    }

    private static Object instance(Class<?> c) {
        try {
            var constructor = c.getDeclaredConstructor();
            constructor.setAccessible(true);
            return constructor.newInstance();
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot make the command " + c.getName(), e);
        }
    }
}
