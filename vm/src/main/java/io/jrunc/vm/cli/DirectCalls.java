package io.jrunc.vm.cli;

import java.nio.file.Path;
import java.nio.file.InvalidPathException;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;

/**
 * The read-only calls (`ls`, `pod ls`, `inspect`, `pod inspect`, `logs`, `stats`), the ones that make
 * and remove containers (`run`, `create`, `start`, `rm`) and start and remove pods (`pod start`, `pod
 * rm`) in their plain forms, and the pod monitor's own `monitor POD`, parsed here without picocli: building picocli's model costs a cold JVM 100 ms or more
 * (annotation proxies, reflection on every option's field, regular expressions), several times the
 * whole of a read-only call, a tenth of a second container's `run --rm`, and time a new pod's monitor
 * would spend before it starts qemu. Each runs the same command class picocli would run, with the same
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
                    return podNamed(new PodCommand.Inspect(), pod, podRest);
                }
                case "start" -> {
                    return podNamed(new PodCommand.Start(), pod, podRest);
                }
                case "rm" -> {
                    boolean force = !podRest.isEmpty() && (podRest.getFirst().equals("-f") || podRest.getFirst().equals("--force"));
                    PodCommand.Rm rm = new PodCommand.Rm();
                    rm.force = force;
                    return podNamed(rm, pod, force ? podRest.subList(1, podRest.size()) : podRest);
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
            case "inspect" -> named(new ContainerCommands.Inspect(), main, verbRest);
            case "logs" -> named(new ContainerCommands.Logs(), main, verbRest);
            case "stats" -> named(new ContainerCommands.Stats(), main, verbRest);
            case "start" -> named(new ContainerCommands.Start(), main, verbRest);
            case "rm" -> {
                boolean force = !verbRest.isEmpty() && (verbRest.getFirst().equals("-f") || verbRest.getFirst().equals("--force"));
                ContainerCommands.Rm rm = new ContainerCommands.Rm();
                rm.force = force;
                yield named(rm, main, force ? verbRest.subList(1, verbRest.size()) : verbRest);
            }
            case "monitor" -> {
                if (!oneName(verbRest)) {
                    yield null;
                }
                Main.Monitor monitor = new Main.Monitor();
                monitor.main = main;
                monitor.pod = verbRest.getFirst();
                yield monitor;
            }
            case "run" -> making(new ContainerCommands.Run(), main, verbRest);
            case "create" -> making(new ContainerCommands.Create(), main, verbRest);
            default -> null;
        };
    }

    /** The verb on the one container {@code rest} names, or null when it is not one name. */
    private static Callable<Integer> named(ContainerCommands.Named verb, Main main, List<String> rest) {
        if (!oneName(rest)) {
            return null;
        }
        verb.main = main;
        verb.name = rest.getFirst();
        return verb;
    }

    /** The verb on the one pod {@code rest} names, or null when it is not one name. */
    private static Callable<Integer> podNamed(PodCommand.Named verb, PodCommand pod, List<String> rest) {
        if (!oneName(rest)) {
            return null;
        }
        verb.pod = pod;
        verb.name = rest.getFirst();
        return verb;
    }

    /**
     * run's and create's flags, each in the forms listed here (a long one's value also after '='), every
     * flag but -p and -v at most once; then the bundle, and from it on the container's command line.
     * Short flags run together (`-it`) are picocli's to parse, as are an empty value and one that
     * starts with '-'.
     */
    private static Callable<Integer> making(ContainerCommands.Making m, Main main, List<String> rest) {
        m.main = main;
        Set<String> seen = new HashSet<>();
        int i = 0;
        for (; i < rest.size() && rest.get(i).startsWith("-"); i++) {
            String a = rest.get(i);
            int eq = a.startsWith("--") ? a.indexOf('=') : -1;
            String flag = eq < 0 ? a : a.substring(0, eq);
            String canonical = switch (flag) {
                case "-i" -> "--interactive";
                case "-t" -> "--tty";
                case "-m" -> "--memory";
                case "-p" -> "--publish";
                case "-v" -> "--volume";
                default -> flag;
            };
            boolean repeatable = canonical.equals("--publish") || canonical.equals("--volume");
            if (!repeatable && !seen.add(canonical)) {
                return null;
            }
            switch (canonical) {
                case "--rm", "--read-only", "--rootfs-share", "--interactive", "--tty" -> {
                    if (eq >= 0) {
                        return null;
                    }
                    switch (canonical) {
                        case "--rm" -> {
                            if (!(m instanceof ContainerCommands.Run run)) {
                                return null;
                            }
                            run.rm = true;
                        }
                        case "--read-only" -> m.readOnly = true;
                        case "--rootfs-share" -> m.rootfsShare = true;
                        case "--interactive" -> m.interactive = true;
                        default -> m.tty = true;
                    }
                }
                case "--pod", "--name", "--memory", "--cpus", "--swap", "--layer-size", "--network", "--publish", "--volume" -> {
                    String value;
                    if (eq >= 0) {
                        value = a.substring(eq + 1);
                    } else if (i + 1 < rest.size()) {
                        value = rest.get(++i);
                    } else {
                        return null;
                    }
                    if (value.isEmpty() || value.startsWith("-")) {
                        return null;
                    }
                    switch (canonical) {
                        case "--pod" -> m.pod = value;
                        case "--name" -> m.name = value;
                        case "--memory" -> m.memory = value;
                        case "--cpus" -> {
                            try {
                                m.cpus = Double.valueOf(value);
                            } catch (NumberFormatException e) {
                                return null;
                            }
                        }
                        case "--swap" -> m.swap = value;
                        case "--layer-size" -> m.layerSize = value;
                        case "--network" -> m.network = value;
                        case "--publish" -> m.publish.add(value);
                        default -> m.volumes.add(value);
                    }
                }
                default -> {
                    return null;
                }
            }
        }
        if (i >= rest.size() || rest.get(i).isEmpty()) {
            return null;
        }
        try {
            m.bundle = Path.of(rest.get(i));
        } catch (InvalidPathException e) {
            return null;
        }
        m.command.addAll(rest.subList(i + 1, rest.size()));
        return m;
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
