package io.jrunc.cli;

import io.jrunc.runtime.ContainerDirectory;
import io.jrunc.runtime.ContainerException;
import io.jrunc.runtime.Log;
import io.jrunc.runtime.Rootless;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * jrunc's command line: runc's global flags, subcommands, error wording and exit codes
 * (runc 1.1's, which containerd, podman and Docker parse). Commands are thin; the work is in io.jrunc.runtime.
 *
 * <p>The parser is jrunc's own ({@link Arguments}, Go's flag rules as runc's urfave/cli applies them):
 * every jrunc call is a fresh JVM, and building a general-purpose parser's model cost each call more
 * than the rest of `start` or `delete` (docs/PERFORMANCE.md).
 */
public final class Main {
    public static final String VERSION = "0.1.0";
    public static final String SPEC_VERSION = "1.2.1";

    static final List<Flag> FLAGS = List.of(
            Flag.bool("debug", "enable debug logging"),
            Flag.string("log", "set the log file to write jrunc logs to (default is stderr)"),
            Flag.string("log-format", "set the log format ('text' (default), or 'json') (default: \"text\")"),
            Flag.string("root", "root directory for storage of container state (this should be located in tmpfs) (default: \"/run/jrunc\" or $XDG_RUNTIME_DIR/jrunc for rootless containers)"),
            Flag.bool("systemd-cgroup", "enable systemd cgroup support"),
            Flag.string("rootless", "ignore cgroup permission errors ('true', 'false', or 'auto') (default: \"auto\")"),
            Flag.bool("help, h", "show help"),
            Flag.bool("version, v", "print the version"));

    Path root = ContainerDirectory.DEFAULT_ROOT;
    /** Whether --root was given; otherwise the root is runc's default ({@link Rootless#defaultStateRoot}). */
    boolean rootGiven;
    Path log;
    String logFormat = "text";
    boolean debug;
    boolean systemdCgroup;
    String rootless = "auto";

    void read(Arguments parsed) {
        String r = parsed.string("root", null);
        root = r == null ? Rootless.defaultStateRoot() : Path.of(r);
        rootGiven = r != null;
        String l = parsed.string("log", null);
        log = l == null ? null : Path.of(l);
        logFormat = parsed.string("log-format", logFormat);
        debug = parsed.flag("debug");
        systemdCgroup = parsed.flag("systemd-cgroup");
        rootless = parsed.string("rootless", rootless);
    }

    /** Set by the running subcommand so failures are reported as "jrunc create failed: ...". */
    static String failurePrefix = "";

    private static void printVersion() {
        System.out.println("jrunc version " + VERSION);
        System.out.println("commit: " + buildProperty("commit"));
        System.out.println("spec: " + SPEC_VERSION);
        System.out.println("java: " + Runtime.version());
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

    /** Applies the global flags; run() does, once the subcommand has parsed and before it runs. */
    void configure() {
        Log.Format format = switch (logFormat) {
            case "text" -> Log.Format.TEXT;
            case "json" -> Log.Format.JSON;
            default -> throw new ContainerException("invalid log-format: " + logFormat);
        };
        Log.configure(log, format, debug);
        Rootless.configure(rootless);
        if (!rootGiven && !root.equals(ContainerDirectory.DEFAULT_ROOT)) {
            prepareXdgRoot(root);
        }
    }

    /**
     * $XDG_RUNTIME_DIR/jrunc made if missing, mode 0700 with the sticky bit: the XDG base directory
     * specification lets a session manager prune files there that lack it (runc does the same).
     */
    private static void prepareXdgRoot(Path root) {
        if (java.nio.file.Files.isDirectory(root)) {
            return;
        }
        try {
            // mkdir(2) takes the sticky bit in its mode (Java's file API cannot set it)
            io.jrunc.bindings.FileDescriptors.mkdir(root.toString(), 01700);
        } catch (io.jrunc.bindings.ErrnoException e) {
            if (!java.nio.file.Files.isDirectory(root)) {
                throw new ContainerException("the path in $XDG_RUNTIME_DIR must be writable by the user: mkdir "
                        + root + ": " + e.goStyle());
            }
        }
    }

    /**
     * Leaves with _exit once the output is flushed. After create (and run --detach, exec --detach) the
     * spawning thread is by design still inside posix_spawn, with the container's process waiting at
     * the exec gate; HotSpot's exit (VM_Exit) waits up to 300 ms for threads in native code to return,
     * which would add that to every such call. Nothing jrunc does needs the JVM's shutdown sequence:
     * files are written and closed synchronously, locks go with the process. Commands that never
     * touched native code leave through Runtime.halt instead, which spares them FFM's start-up; not
     * System.exit, which first starts the JDK's logging to record the exit (docs/PERFORMANCE.md).
     */
    public static void main(String[] args) {
        // A failure on any other thread is one error line too, never a JVM "Exception in thread".
        Thread.setDefaultUncaughtExceptionHandler(new ReportUncaught());
        int status;
        try {
            status = run(args);
        } catch (Throwable e) {
            status = report(e);
        }
        System.out.flush();
        System.err.flush();
        if (io.jrunc.bindings.NativeAccess.used()) {
            io.jrunc.bindings.Processes.exitNow(status);
        }
        Runtime.getRuntime().halt(status);
    }

    /**
     * {@link #report}s what another thread let escape. A class, not a lambda: a lambda is an
     * invokedynamic linked on every call's start path, and AOT training runs {@link #run}, not main,
     * so its linkage would not be in the cache.
     */
    private static final class ReportUncaught implements Thread.UncaughtExceptionHandler {
        @Override
        public void uncaughtException(Thread thread, Throwable e) {
            report(e);
        }
    }

    /** The subcommand called {@code name} (or runc's alias "ls"), or null. */
    static Subcommand command(String name) {
        return switch (name) {
            case "create" -> new CreateCommand();
            case "delete" -> new DeleteCommand();
            case "events" -> new EventsCommand();
            case "exec" -> new ExecCommand();
            case "features" -> new FeaturesCommand();
            case "kill" -> new KillCommand();
            case "list", "ls" -> new ListCommand();
            case "pause" -> new PauseCommand();
            case "ps" -> new PsCommand();
            case "resume" -> new ResumeCommand();
            case "run" -> new RunCommand();
            case "spec" -> new SpecCommand();
            case "start" -> new StartCommand();
            case "state" -> new StateCommand();
            case "update" -> new UpdateCommand();
            default -> null;
        };
    }

    /** Every subcommand, in the order `jrunc --help` lists them (runc's). */
    static List<Subcommand> commands() {
        List<Subcommand> all = new ArrayList<>();
        for (String name : List.of("create", "delete", "events", "exec", "kill", "list", "pause", "ps", "resume",
                "run", "spec", "start", "state", "update", "features")) {
            all.add(command(name));
        }
        return all;
    }

    /**
     * Runs one command line and returns the exit status: 0, 1 for a failure (runc's), 3 for an unknown
     * command (urfave/cli's).
     */
    public static int run(String... args) {
        Main main = new Main();
        Arguments global;
        try {
            global = Arguments.parse(FLAGS, args, 0);
        } catch (Arguments.UsageException e) {
            return incorrectUsage("Incorrect Usage. ", e, Help.global(FLAGS, commands()));
        }
        main.read(global);
        if (global.flag("version")) {
            printVersion();
            return 0;
        }
        String name = global.positional(0);
        if (name != null && (name.equals("help") || name.equals("h"))) {
            String topic = global.positional(1);
            Subcommand c = topic == null ? null : command(topic);
            System.out.print(c == null ? Help.global(FLAGS, commands()) : Help.command(c));
            return 0;
        }
        if (name == null || global.flag("help")) {
            System.out.print(Help.global(FLAGS, commands()));
            return 0;
        }
        Subcommand sub = command(name);
        if (sub == null) {
            Log.error("No help topic for '" + name + "'");
            return 3;
        }
        sub.main = main;
        int at = args.length - global.positionalFrom(0).size() + 1;
        try {
            Arguments parsed;
            try {
                parsed = Arguments.parse(sub.flags(), args, at, sub.flagsAfterArguments());
            } catch (Arguments.UsageException e) {
                main.configure();
                return incorrectUsage("Incorrect Usage: ", e, Help.command(sub));
            }
            if (parsed.helpRequested()) {
                System.out.print(Help.command(sub));
                return 0;
            }
            main.configure(); // before any error, so that it goes to --log in --log-format
            checkArgumentCount(sub, parsed.positionalFrom(0).size());
            sub.read(parsed);
            return sub.call();
        } catch (Exception | StackOverflowError | OutOfMemoryError e) {
            return report(e);
        }
    }

    /** runc's checkArgs: exactly N, or a minimum of 1 and a maximum of N (N = -1: no maximum). */
    private static void checkArgumentCount(Subcommand sub, int count) {
        int max = sub.maxArguments();
        String problem = null;
        if (sub.exactArguments()) {
            problem = count == max ? null : "exactly " + max;
        } else if (count < 1) {
            problem = "a minimum of 1";
        } else if (max >= 0 && count > max) {
            problem = "a maximum of " + max;
        }
        if (problem != null) {
            throw new ContainerException("jrunc: \"" + sub.name() + "\" requires " + problem + " argument(s)");
        }
    }

    /** urfave/cli's answer to a bad command line: the message and the help on stdout, the error logged. */
    private static int incorrectUsage(String prefix, Arguments.UsageException e, String help) {
        System.out.print(prefix + e.getMessage() + "\n\n" + help);
        System.out.flush();
        Log.error(e.getMessage());
        return 1;
    }

    /**
     * Every failure is one error line in runc's shape (a JSON line with --log-format json), exit 1,
     * whatever threw it: a caller parses that line, and a stack trace on its stdout or stderr reads as
     * a crash. With --debug the stack trace goes to the log as debug lines.
     */
    static int report(Throwable e) {
        String msg = failurePrefix + Failures.describe(e);
        Log.error(msg);
        if (Log.toFile()) {
            System.err.println(msg);
        }
        if (Log.isDebug()) {
            java.io.StringWriter trace = new java.io.StringWriter();
            e.printStackTrace(new java.io.PrintWriter(trace));
            trace.toString().lines().forEach(Log::debug);
        }
        return 1;
    }
}
