package io.jrunc.cli;

import io.jrunc.runtime.ContainerDirectory;
import io.jrunc.runtime.ContainerException;
import io.jrunc.runtime.Log;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.function.Supplier;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ParseResult;

/**
 * jrunc's command line: runc's global flags, subcommands, error wording and exit codes
 * (shared/reference/anchors.md part C). Commands are thin; the work is in io.jrunc.runtime.
 *
 * <p>The picocli model is declared in code (Cli, each command's spec()) rather than with picocli's
 * annotations: every call is a fresh JVM, and annotations cost it reflection plus JDK annotation
 * proxies generated at run time, which the AOT cache cannot hold (docs/PERFORMANCE.md).
 */
public final class Main implements Callable<Integer> {
    public static final String VERSION = "0.1.0";
    public static final String SPEC_VERSION = "1.2.1";

    Path root = ContainerDirectory.DEFAULT_ROOT;
    Path log;
    String logFormat = "text";
    boolean debug;
    boolean systemdCgroup;
    String rootless = "auto";
    boolean version;

    static CommandSpec spec(Main main) {
        return Cli.command(main, "jrunc", "Open Container Initiative runtime written in Java",
                Cli.option("root", Path.class, "root directory for storage of container state (default: /run/jrunc)",
                        "--root"),
                Cli.option("log", Path.class, "set the log file to write jrunc logs to (default is stderr)", "--log"),
                Cli.option("logFormat", String.class, "set the log format ('text' (default), or 'json')",
                        "--log-format"),
                Cli.flag("debug", "enable debug logging", "--debug"),
                Cli.flag("systemdCgroup", "enable systemd cgroup support", "--systemd-cgroup"),
                Cli.option("rootless", String.class, "ignore cgroup permission errors ('true', 'false', or 'auto')",
                        "--rootless"),
                Cli.flag("version", "print the version", "-v", "--version"),
                OptionSpec.builder("-h", "--help").usageHelp(true).type(boolean.class).paramLabel("<help>")
                        .description("show help").build());
    }

    void read(ParseResult parsed) {
        root = parsed.matchedOptionValue("--root", root);
        log = parsed.matchedOptionValue("--log", log);
        logFormat = parsed.matchedOptionValue("--log-format", logFormat);
        debug = parsed.matchedOptionValue("--debug", debug);
        systemdCgroup = parsed.matchedOptionValue("--systemd-cgroup", systemdCgroup);
        rootless = parsed.matchedOptionValue("--rootless", rootless);
        version = parsed.matchedOptionValue("--version", version);
    }

    /** Set by the running subcommand so failures are reported as "jrunc create failed: ...". */
    static String failurePrefix = "";

    @Override
    public Integer call() {
        if (version) {
            System.out.println("jrunc version " + VERSION);
            System.out.println("commit: " + buildProperty("commit"));
            System.out.println("spec: " + SPEC_VERSION);
            System.out.println("java: " + Runtime.version());
            return 0;
        }
        new CommandLine(spec(this)).usage(System.out); // the global flags only, as before
        return 0;
    }

    /** A value recorded at build time in jrunc.properties (the Makefile passes the git commit). */
    static String buildProperty(String key) {
        java.util.Properties p = new java.util.Properties();
        try (var in = Main.class.getResourceAsStream("/jrunc.properties")) {
            if (in != null) {
                p.load(in);
            }
        } catch (java.io.IOException ignored) {
            // reported as unknown
        }
        String value = p.getProperty(key, "");
        return value.isEmpty() || value.startsWith("${") ? "unknown" : value;
    }

    /** Applies the global flags; every subcommand calls it first. */
    void configure() {
        Log.Format format = switch (logFormat) {
            case "text" -> Log.Format.TEXT;
            case "json" -> Log.Format.JSON;
            default -> throw new ContainerException("invalid log-format: " + logFormat);
        };
        Log.configure(log, format, debug);
        if ("true".equals(rootless)) {
            throw new ContainerException("--rootless: rootless containers are not supported by jrunc yet");
        }
    }

    /**
     * Leaves with _exit once the output is flushed. After create (and run --detach, exec --detach) the
     * spawning thread is by design still inside posix_spawn, with the container's process waiting at
     * the exec gate; HotSpot's exit (VM_Exit) waits up to 300 ms for threads in native code to return,
     * which would add that to every such call. Nothing jrunc does needs the JVM's shutdown sequence:
     * files are written and closed synchronously, locks go with the process.
     */
    public static void main(String[] args) {
        int status = run(args);
        System.out.flush();
        System.err.flush();
        io.jrunc.bindings.Processes.exitNow(status);
    }

    /** Subcommands by name, created on demand. */
    private static final Map<String, Supplier<Subcommand>> COMMANDS = new LinkedHashMap<>();

    static {
        COMMANDS.put("create", CreateCommand::new);
        COMMANDS.put("delete", DeleteCommand::new);
        COMMANDS.put("events", EventsCommand::new);
        COMMANDS.put("pause", PauseCommand::new);
        COMMANDS.put("resume", ResumeCommand::new);
        COMMANDS.put("update", UpdateCommand::new);
        COMMANDS.put("exec", ExecCommand::new);
        COMMANDS.put("features", FeaturesCommand::new);
        COMMANDS.put("kill", KillCommand::new);
        COMMANDS.put("list", ListCommand::new);
        COMMANDS.put("ps", PsCommand::new);
        COMMANDS.put("run", RunCommand::new);
        COMMANDS.put("spec", SpecCommand::new);
        COMMANDS.put("start", StartCommand::new);
        COMMANDS.put("state", StateCommand::new);
    }

    /** Global options that take a value as the next argument (so it is not mistaken for the command). */
    private static final Set<String> GLOBAL_WITH_VALUE = Set.of("--root", "--log", "--log-format", "--rootless");

    public static int run(String... args) {
        return commandLine(args).execute(args);
    }

    /** jrunc's parser for these arguments, with only the subcommand they name registered. */
    static CommandLine commandLine(String[] args) {
        Main main = new Main();
        CommandLine cli = new CommandLine(spec(main));
        // Building a command's model is most of picocli's start-up cost; every jrunc call pays it, so
        // only the subcommand being run is registered.
        String name = subcommandOf(args);
        if ("ls".equals(name)) {
            name = "list";
        }
        if (name != null && COMMANDS.containsKey(name)) {
            cli.addSubcommand(COMMANDS.get(name).get().spec());
        } else {
            COMMANDS.values().forEach(c -> cli.addSubcommand(c.get().spec()));
        }
        // urfave/cli (runc) stops reading flags at the first argument: `exec ID sh -c x` passes -c to sh.
        cli.setStopAtPositional(true);
        // The model holds the parsed values; copy them into the commands' fields, then run as picocli would.
        cli.setExecutionStrategy(parsed -> {
            main.read(parsed);
            if (parsed.hasSubcommand()) {
                Subcommand sub = (Subcommand) parsed.subcommand().commandSpec().userObject();
                sub.main = main;
                sub.read(parsed.subcommand());
            }
            return new CommandLine.RunLast().execute(parsed);
        });
        cli.setExecutionExceptionHandler((e, commandLine, parseResult) -> report(e));
        cli.setParameterExceptionHandler((e, a) -> {
            Log.error(e.getMessage());
            return 1;
        });
        return cli;
    }

    static String subcommandOf(String[] args) {
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (a.equals("--")) {
                return i + 1 < args.length ? args[i + 1] : null;
            }
            if (a.startsWith("-")) {
                if (GLOBAL_WITH_VALUE.contains(a)) {
                    i++;
                }
                continue;
            }
            return a;
        }
        return null;
    }

    static int report(Exception e) {
        String msg = e instanceof ContainerException ? e.getMessage() : String.valueOf(e);
        msg = failurePrefix + msg;
        Log.error(msg);
        if (Log.toFile()) {
            System.err.println(msg);
        }
        if (Log.isDebug() || !(e instanceof ContainerException)) {
            e.printStackTrace();
        }
        return 1;
    }
}
