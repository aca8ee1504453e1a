package io.jrunc.cli;

import io.jrunc.runtime.ContainerDirectory;
import io.jrunc.runtime.ContainerException;
import io.jrunc.runtime.Log;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * jrunc's command line: runc's global flags, subcommands, error wording and exit codes
 * (shared/reference/anchors.md part C). Commands are thin; the work is in io.jrunc.runtime.
 */
@Command(name = "jrunc", subcommands = {
        CreateCommand.class, StartCommand.class, StateCommand.class, KillCommand.class, DeleteCommand.class,
        RunCommand.class, ListCommand.class, ExecCommand.class, SpecCommand.class, FeaturesCommand.class,
        PsCommand.class},
        description = "Open Container Initiative runtime written in Java")
public final class Main implements Callable<Integer> {
    public static final String VERSION = "0.1.0";
    public static final String SPEC_VERSION = "1.2.1";

    @Option(names = "--root", description = "root directory for storage of container state (default: /run/jrunc)")
    Path root = ContainerDirectory.DEFAULT_ROOT;

    @Option(names = "--log", description = "set the log file to write jrunc logs to (default is stderr)")
    Path log;

    @Option(names = "--log-format", description = "set the log format ('text' (default), or 'json')")
    String logFormat = "text";

    @Option(names = "--debug", description = "enable debug logging")
    boolean debug;

    @Option(names = "--systemd-cgroup", description = "enable systemd cgroup support")
    boolean systemdCgroup;

    @Option(names = "--rootless", description = "ignore cgroup permission errors ('true', 'false', or 'auto')")
    String rootless = "auto";

    @Option(names = {"-v", "--version"}, description = "print the version")
    boolean version;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "show help")
    boolean help;

    /** Set by the running subcommand so failures are reported as "jrunc create failed: ...". */
    static String failurePrefix = "";

    @Override
    public Integer call() {
        if (version) {
            System.out.println("jrunc version " + VERSION);
            System.out.println("commit: " + Main.class.getPackage().getImplementationVersion());
            System.out.println("spec: " + SPEC_VERSION);
            System.out.println("java: " + Runtime.version());
            return 0;
        }
        new CommandLine(this).usage(System.out);
        return 0;
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

    public static void main(String[] args) {
        System.exit(run(args));
    }

    public static int run(String... args) {
        CommandLine cli = new CommandLine(new Main());
        cli.setExecutionExceptionHandler((e, commandLine, parseResult) -> report(e));
        cli.setParameterExceptionHandler((e, a) -> {
            Log.error(e.getMessage());
            return 1;
        });
        return cli.execute(args);
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
