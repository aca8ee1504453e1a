package io.jrunc.shim.cli;

import java.util.List;

/**
 * The command line containerd gives a shim, parsed as Go's flag package does (-name value, -name=value,
 * --name, booleans without a value; flags end at the first argument that is not one): {@code -namespace
 * NS -address ADDR -publish-binary PATH -id ID [-bundle DIR] [-debug] [-v] [start|delete]}. No
 * subcommand means "serve": the long-lived shim that {@code start} spawns.
 */
record ShimFlags(String namespace, String address, String publishBinary, String id, String bundle,
                 boolean debug, boolean version, String command) {

    static final class UsageException extends Exception {
        UsageException(String message) {
            super(message);
        }
    }

    static ShimFlags parse(List<String> args) throws UsageException {
        String namespace = "", address = "", publishBinary = "", id = "", bundle = "";
        boolean debug = false, version = false;
        int i = 0;
        for (; i < args.size(); i++) {
            String arg = args.get(i);
            if (arg.equals("--")) {
                i++;
                break;
            }
            if (!arg.startsWith("-") || arg.equals("-")) {
                break;
            }
            String name = arg.replaceFirst("^--?", "");
            String value = null;
            int eq = name.indexOf('=');
            if (eq >= 0) {
                value = name.substring(eq + 1);
                name = name.substring(0, eq);
            }
            switch (name) {
                case "debug", "v" -> {
                    boolean on = value == null || parseBool(name, value);
                    if (name.equals("debug")) {
                        debug = on;
                    } else {
                        version = on;
                    }
                }
                case "namespace", "address", "publish-binary", "id", "bundle" -> {
                    if (value == null) {
                        if (i + 1 >= args.size()) {
                            throw new UsageException("flag needs an argument: -" + name);
                        }
                        value = args.get(++i);
                    }
                    switch (name) {
                        case "namespace" -> namespace = value;
                        case "address" -> address = value;
                        case "publish-binary" -> publishBinary = value;
                        case "id" -> id = value;
                        default -> bundle = value;
                    }
                }
                default -> throw new UsageException("flag provided but not defined: -" + name);
            }
        }
        List<String> rest = args.subList(i, args.size());
        if (rest.size() > 1) {
            throw new UsageException("unexpected arguments after " + rest.getFirst() + ": " + rest.subList(1, rest.size()));
        }
        String command = rest.isEmpty() ? "" : rest.getFirst();
        if (!command.isEmpty() && !command.equals("start") && !command.equals("delete")) {
            throw new UsageException("unknown command " + command + " (start, delete, or none to serve)");
        }
        return new ShimFlags(namespace, address, publishBinary, id, bundle, debug, version, command);
    }

    private static boolean parseBool(String name, String value) throws UsageException {
        return switch (value) {
            case "1", "t", "T", "true", "TRUE", "True" -> true;
            case "0", "f", "F", "false", "FALSE", "False" -> false;
            default -> throw new UsageException("invalid boolean value \"" + value + "\" for -" + name);
        };
    }

    /** The flags a command needs, each named when missing. */
    void require(String... names) throws UsageException {
        for (String n : names) {
            String v = switch (n) {
                case "namespace" -> namespace;
                case "address" -> address;
                case "id" -> id;
                default -> throw new IllegalArgumentException(n);
            };
            if (v.isEmpty()) {
                throw new UsageException("-" + n + " is required");
            }
        }
    }
}
