package io.jrunc.vm.cli;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * The read-only calls (`ls`, `pod ls`, `inspect`, `pod inspect`, `logs`, `stats`) in their plain forms,
 * parsed here without picocli: building picocli's model costs a cold JVM a few hundred ms, several
 * times the whole of such a call. Each runs the same command class picocli would run, with the same
 * fields set, so the output and errors are the command's own. Anything else (help, an option these
 * forms do not have, an option given twice, a name that looks like an option, a missing or extra
 * argument, an option's value that does not parse) is left to picocli, whose parse and messages stay
 * the one reference: {@link #command} answers null and the caller runs picocli.
 */
final class DirectCalls {
    private DirectCalls() {
    }

    /** The command to run for {@code args}, set up as picocli would set it up, or null: picocli's to parse. */
    static Callable<Integer> command(String[] args, Main main) {
        int i = 0;
        boolean root = false;
        boolean timeout = false;
        boolean config = false;
        for (; i < args.length && args[i].startsWith("-"); i++) {
            String a = args[i];
            String option = a.contains("=") ? a.substring(0, a.indexOf('=')) : a;
            String value;
            if (a.contains("=")) {
                value = a.substring(a.indexOf('=') + 1);
            } else if (i + 1 < args.length) {
                value = args[++i];
            } else {
                return null;
            }
            switch (option) {
                case "--root" -> {
                    if (root) {
                        return null;
                    }
                    root = true;
                    main.root = Path.of(value);
                }
                case "--boot-timeout" -> {
                    if (timeout || !value.matches("[0-9]{1,9}")) {
                        return null;
                    }
                    timeout = true;
                    main.bootTimeout = Integer.parseInt(value);
                }
                case "--config" -> {
                    if (config) {
                        return null;
                    }
                    config = true;
                    main.config = Path.of(value);
                }
                default -> {
                    return null;
                }
            }
        }
        List<String> rest = Arrays.asList(args).subList(i, args.length);
        if (rest.isEmpty()) {
            return null;
        }
        String verb = rest.getFirst();
        if (verb.equals("pod") && rest.size() >= 2) {
            PodCommand pod = new PodCommand();
            pod.main = main;
            List<String> podRest = rest.subList(2, rest.size());
            switch (rest.get(1)) {
                case "ls", "list" -> {
                    PodCommand.Ls ls = new PodCommand.Ls();
                    ls.pod = pod;
                    ls.format = format(podRest);
                    return ls.format == null && !podRest.isEmpty() ? null : ls;
                }
                case "inspect" -> {
                    if (!oneName(podRest)) {
                        return null;
                    }
                    PodCommand.Inspect inspect = new PodCommand.Inspect();
                    inspect.pod = pod;
                    inspect.name = podRest.getFirst();
                    return inspect;
                }
                default -> {
                    return null;
                }
            }
        }
        List<String> verbRest = rest.subList(1, rest.size());
        return switch (verb) {
            case "ls", "ps", "list" -> {
                ContainerCommands.Ls ls = new ContainerCommands.Ls();
                ls.main = main;
                ls.format = format(verbRest);
                yield ls.format == null && !verbRest.isEmpty() ? null : ls;
            }
            case "inspect" -> {
                if (!oneName(verbRest)) {
                    yield null;
                }
                ContainerCommands.Inspect inspect = new ContainerCommands.Inspect();
                inspect.main = main;
                inspect.name = verbRest.getFirst();
                yield inspect;
            }
            case "logs" -> {
                if (!oneName(verbRest)) {
                    yield null;
                }
                ContainerCommands.Logs logs = new ContainerCommands.Logs();
                logs.main = main;
                logs.name = verbRest.getFirst();
                yield logs;
            }
            case "stats" -> {
                if (!oneName(verbRest)) {
                    yield null;
                }
                ContainerCommands.Stats stats = new ContainerCommands.Stats();
                stats.main = main;
                stats.name = verbRest.getFirst();
                yield stats;
            }
            default -> null;
        };
    }

    /** `--format F` or `--format=F` as the only arguments: F; anything else null. */
    private static String format(List<String> rest) {
        if (rest.size() == 2 && rest.get(0).equals("--format")) {
            return rest.get(1);
        }
        if (rest.size() == 1 && rest.get(0).startsWith("--format=")) {
            return rest.get(0).substring("--format=".length());
        }
        return null;
    }

    /** One argument, which is not an option. */
    private static boolean oneName(List<String> rest) {
        return rest.size() == 1 && !rest.getFirst().startsWith("-") && !rest.getFirst().isEmpty();
    }
}
