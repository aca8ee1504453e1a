package io.jrunc.cli;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A parsed command line: the flags given, by primary name, and the positional arguments after them.
 *
 * <p>Parsing follows Go's flag package, which runc's urfave/cli uses, so callers' command lines mean
 * the same to jrunc: {@code -name} and {@code --name} alike, {@code --name=value} or {@code --name value},
 * {@code --bool=false}; the first argument that is not a flag ends the flags, and {@code --} ends them
 * explicitly. Before that, a subcommand's own flags given after its arguments are moved in front of them,
 * as urfave/cli v1 does ({@code delete ID --force}), except for commands whose trailing arguments belong
 * to a process ({@code exec ID sh -c x}: the {@code -c} reaches sh). Errors use Go's wording ("flag
 * provided but not defined: -x"), which is what a runc caller sees in its log.
 */
final class Arguments {
    /** A command line that does not parse: urfave/cli prints the message with the command's help. */
    static final class UsageException extends RuntimeException {
        UsageException(String message) {
            super(message);
        }
    }

    private final Map<String, List<String>> values = new HashMap<>();
    private final List<String> positional = new ArrayList<>();
    private boolean help;

    private Arguments() {}

    /** Parses {@code args[from..]} against {@code flags}; -h/--help is always known. */
    static Arguments parse(List<Flag> flags, String[] args, int from) {
        return parse(flags, args, from, false);
    }

    /** As {@link #parse(List, String[], int)}, with urfave/cli's reordering first when {@code reorder}. */
    static Arguments parse(List<Flag> flags, String[] args, int from, boolean reorder) {
        if (reorder) {
            args = reorder(flags, args, from);
            from = 0;
        }
        Arguments parsed = new Arguments();
        int i = from;
        while (i < args.length) {
            String arg = args[i];
            if (arg.length() < 2 || arg.charAt(0) != '-') {
                break;
            }
            i++;
            if (arg.equals("--")) {
                break;
            }
            String name = withoutDashes(arg);
            if (name.isEmpty() || name.charAt(0) == '-' || name.charAt(0) == '=') {
                throw new UsageException("bad flag syntax: " + arg);
            }
            String value = null;
            int eq = name.indexOf('=');
            if (eq >= 0) {
                value = name.substring(eq + 1);
                name = name.substring(0, eq);
            }
            Flag flag = find(flags, name);
            if (flag == null) {
                if (name.equals("help") || name.equals("h")) {
                    parsed.help = true;
                    continue;
                }
                throw new UsageException("flag provided but not defined: -" + name);
            }
            if (!flag.takesValue()) {
                boolean on = value == null || parseBool(value, name);
                parsed.values.put(flag.name(), new ArrayList<>(List.of(Boolean.toString(on))));
                continue;
            }
            if (value == null) {
                if (i >= args.length) {
                    throw new UsageException("flag needs an argument: -" + name);
                }
                value = args[i++];
            }
            if (flag.kind() == Flag.Kind.INT || flag.kind() == Flag.Kind.UINT) {
                try {
                    if (Integer.parseInt(value) < 0 && flag.kind() == Flag.Kind.UINT) {
                        throw new NumberFormatException(value);
                    }
                } catch (NumberFormatException e) {
                    throw new UsageException("invalid value \"" + value + "\" for flag -" + name + ": parse error");
                }
            }
            List<String> list = parsed.values.computeIfAbsent(flag.name(), k -> new ArrayList<>());
            if (flag.kind() != Flag.Kind.LIST) {
                list.clear();
            }
            list.add(value);
        }
        for (; i < args.length; i++) {
            parsed.positional.add(args[i]);
        }
        return parsed;
    }

    /**
     * urfave/cli v1's reorderArgs: the command's known flags, each with the argument right after it when
     * that does not start with a dash or is "-" (it may be the flag's value), go first; everything else
     * keeps its order after them; nothing after {@code --} moves.
     */
    private static String[] reorder(List<Flag> flags, String[] args, int from) {
        List<String> moved = new ArrayList<>();
        List<String> rest = new ArrayList<>();
        boolean mayBeValue = false;
        for (int i = from; i < args.length; i++) {
            String arg = args[i];
            if (arg.equals("--")) {
                for (; i < args.length; i++) {
                    rest.add(args[i]);
                }
                break;
            }
            if (mayBeValue && (arg.equals("-") || !arg.startsWith("-"))) {
                moved.add(arg); // "-" too: `update --resources - ID` reads stdin, as with runc
                mayBeValue = false;
            } else if (isKnownFlag(flags, arg)) {
                moved.add(arg);
                mayBeValue = !arg.contains("=");
            } else {
                rest.add(arg);
                mayBeValue = false;
            }
        }
        moved.addAll(rest);
        return moved.toArray(new String[0]);
    }

    private static boolean isKnownFlag(List<Flag> flags, String arg) {
        if (arg.length() < 2 || arg.charAt(0) != '-' || arg.equals("--")) {
            return false;
        }
        String name = withoutDashes(arg);
        int eq = name.indexOf('=');
        return find(flags, eq < 0 ? name : name.substring(0, eq)) != null;
    }

    /** "--name=v" or "-name=v" without its one or two leading dashes. */
    private static String withoutDashes(String arg) {
        return arg.substring(arg.charAt(1) == '-' ? 2 : 1);
    }

    private static Flag find(List<Flag> flags, String name) {
        for (Flag f : flags) {
            if (f.names().contains(name)) {
                return f;
            }
        }
        return null;
    }

    /** Go's strconv.ParseBool. */
    private static boolean parseBool(String value, String name) {
        return switch (value) {
            case "1", "t", "T", "true", "TRUE", "True" -> true;
            case "0", "f", "F", "false", "FALSE", "False" -> false;
            default -> throw new UsageException("invalid boolean value \"" + value + "\" for -" + name + ": parse error");
        };
    }

    boolean helpRequested() {
        return help;
    }

    boolean flag(String name) {
        List<String> v = values.get(name);
        return v != null && Boolean.parseBoolean(v.get(0));
    }

    /** The last value given for {@code name}, or {@code fallback}. */
    String string(String name, String fallback) {
        List<String> v = values.get(name);
        return v == null ? fallback : v.get(v.size() - 1);
    }

    int integer(String name, int fallback) {
        String v = string(name, null);
        return v == null ? fallback : Integer.parseInt(v);
    }

    /** Every value given for a repeatable flag, in order (empty when none). */
    List<String> list(String name) {
        List<String> v = values.get(name);
        return v == null ? new ArrayList<>() : new ArrayList<>(v);
    }

    /** The positional argument at {@code index}, or null. */
    String positional(int index) {
        return index < positional.size() ? positional.get(index) : null;
    }

    /** The positional arguments from {@code index} on. */
    List<String> positionalFrom(int index) {
        return index < positional.size() ? new ArrayList<>(positional.subList(index, positional.size()))
                : new ArrayList<>();
    }
}
