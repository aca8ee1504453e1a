package io.jrunc.vm.cli;

import io.jrunc.vm.Containers;
import io.jrunc.vm.PodPool;
import io.jrunc.vm.Pods;
import io.jrunc.vm.VmException;
import io.jrunc.vm.config.ConfigFile;
import io.jrunc.vm.monitor.MonitorLink;
import io.jrunc.vm.monitor.PodMonitor;
import io.jrunc.vm.state.StateRoot;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * jrunc-vm: pods of containers in lightweight VMs (docs/vm.md). The commands are thin: the work is in
 * {@link Pods} and {@link Containers}. Errors are one line on stderr, "jrunc-vm: ...", never a stack
 * trace; exit codes are podman's (125 jrunc-vm's own error, 126 a command that cannot run, 127 one
 * not found, else the container's status).
 */
@Command(name = "jrunc-vm", mixinStandardHelpOptions = true, version = "jrunc-vm 0.1.0",
        description = "Run OCI containers in pods, each pod a lightweight VM.")
public final class Main implements Runnable {
    /**
     * The commands, in the order `--help` lists them. Registered with picocli by {@link Verbs}: only the
     * one a command line names, since picocli's model of every command and option costs a call most of
     * its time (hundreds of ms of reflection on a cold JVM).
     */
    static final List<Class<?>> COMMANDS = List.of(PodCommand.class, ContainerCommands.Create.class, ContainerCommands.Start.class,
            ContainerCommands.Stop.class, ContainerCommands.Kill.class, ContainerCommands.Pause.class, ContainerCommands.Unpause.class,
            ContainerCommands.Rm.class, ContainerCommands.Ls.class, ContainerCommands.Inspect.class, ContainerCommands.Logs.class,
            ContainerCommands.Stats.class, ContainerCommands.Exec.class, ContainerCommands.Run.class,
            ContainerUpdate.class, ContainerCopy.class, Main.Monitor.class);
    /** The options of jrunc-vm itself that take a value (the command's name is the first argument after them). */
    static final Set<String> GLOBAL_VALUED = Set.of("--root", "--boot-timeout", "--config");

    static final String DEFAULT_ROOT = "/run/jrunc-vm";
    static final String DEFAULT_BOOT_TIMEOUT = "180";

    @Option(names = "--root", description = "state root (default ${DEFAULT-VALUE})", defaultValue = DEFAULT_ROOT)
    Path root = Path.of(DEFAULT_ROOT);

    @Option(names = "--boot-timeout", description = "seconds to wait for a pod's VM to come up (default ${DEFAULT-VALUE})",
            defaultValue = DEFAULT_BOOT_TIMEOUT)
    int bootTimeout = Integer.parseInt(DEFAULT_BOOT_TIMEOUT);

    @Option(names = "--config", paramLabel = "FILE",
            description = "configuration file (TOML: [pod] swap; [container] memory, cpus, swap; [pool] size); default /etc/jrunc-vm/config.toml when it exists")
    Path config;

    /** Tests replace how a monitor starts (in-process stand-ins); the binary starts a monitor JVM. */
    MonitorLink.Starter starter = MonitorLink::startProcess;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(), "a command is required (see jrunc-vm --help)");
    }

    /** The command's link to the monitors: one connection per pod, kept for the whole command. */
    private MonitorLink link;

    Pods pods() {
        StateRoot state = new StateRoot(root);
        if (link == null) {
            link = MonitorLink.sharing(state, starter, Duration.ofSeconds(bootTimeout));
        }
        return new Pods(state, link);
    }

    /** Closes the command's connections to monitors (at its end). */
    private void closeLink() {
        if (link != null) {
            link.close();
        }
    }

    Containers containers() {
        return new Containers(pods());
    }

    /** Containers that take anonymous pods from the warm pool the configuration file keeps, if any. */
    Containers containersWithPool() throws VmException {
        return new Containers(pods(), Containers.Timeouts.DEFAULTS, pool());
    }

    PodPool pool() throws VmException {
        return new PodPool(pods(), defaults());
    }

    /** The configuration file's defaults (a flag wins over them), read once per command. */
    private ConfigFile.Defaults defaults;

    ConfigFile.Defaults defaults() throws VmException {
        if (defaults == null) {
            defaults = ConfigFile.load(config);
        }
        return defaults;
    }

    /** This command's options of jrunc-vm itself, for a jrunc-vm it starts (the pool's fill). */
    List<String> globalArgs() {
        List<String> args = new java.util.ArrayList<>(List.of("--root", root.toString(), "--boot-timeout", Integer.toString(bootTimeout)));
        if (config != null) {
            args.addAll(List.of("--config", config.toString()));
        }
        return args;
    }

    @Command(name = "monitor", hidden = true, description = "The pod monitor process (started by jrunc-vm itself).")
    static final class Monitor implements java.util.concurrent.Callable<Integer> {
        @CommandLine.ParentCommand
        Main main;
        @CommandLine.Parameters(paramLabel = "POD")
        String pod;

        @Override
        public Integer call() {
            Output.shutdownAtExit = true;
            return PodMonitor.runProcess(new StateRoot(main.root), pod);
        }
    }

    /**
     * A command leaves through Runtime.halt once its output is flushed and any terminal it made raw
     * is restored: System.exit first starts the JDK's logging to record the exit (its logger finder
     * looked up as a service, every jar opened), several ms of every call, and nothing a command
     * does needs the shutdown sequence (files are written and closed as it goes, child processes are
     * waited for or meant to outlive it). The pod monitor, a long-lived process, exits the usual way.
     */
    public static void main(String[] args) {
        int code = run(args, System.out, System.err, null);
        if (Output.shutdownAtExit) {
            System.exit(code);
        }
        System.out.flush();
        System.err.flush();
        if (Output.terminalMadeRaw) {
            HostTerminal.restoreAll(); // not loaded (from its jar, outside the AOT caches) by a call that never needed it
        }
        Runtime.getRuntime().halt(code);
    }

    /** Runs a command line; its exit code. {@code starter} null means the real monitor process. */
    public static int run(String[] args, PrintStream out, PrintStream err, MonitorLink.Starter starter) {
        Main main = new Main();
        if (starter != null) {
            main.starter = starter;
        }
        Output.out = out;
        Output.err = err;
        java.util.concurrent.Callable<Integer> direct = DirectCalls.command(args, main);
        if (direct != null) {
            try {
                return direct.call();
            } catch (Exception e) {
                return report(e, err);
            } finally {
                main.closeLink();
            }
        }
        main = new Main(); // picocli sets every field afresh
        if (starter != null) {
            main.starter = starter;
        }
        CommandLine cl = commandLine(main, args);
        cl.setOut(new java.io.PrintWriter(out, true));
        cl.setErr(new java.io.PrintWriter(err, true));
        cl.setParameterExceptionHandler((e, a) -> {
            err.println("jrunc-vm: " + e.getMessage().lines().findFirst().orElse("bad arguments"));
            return VmException.OWN_ERROR;
        });
        cl.setExecutionExceptionHandler((e, c, r) -> report(e, err));
        cl.setExitCodeExceptionMapper(e -> VmException.OWN_ERROR);
        try {
            return cl.execute(args);
        } finally {
            main.closeLink();
        }
    }

    /** picocli's model of jrunc-vm with the command {@code args} name (see {@link Verbs}). */
    static CommandLine commandLine(Main main, String[] args) {
        CommandLine cl = new CommandLine(main);
        Verbs.register(cl, COMMANDS, GLOBAL_VALUED, args, 0);
        // As podman's: everything from a command's first positional on is the container's command line
        // (`run BUNDLE sh -c ...`, `exec C ls -l`), never jrunc-vm's options.
        cl.setStopAtPositional(true);
        return cl;
    }

    /** A command's failure: one line on stderr, and its exit code. */
    private static int report(Exception e, PrintStream err) {
        if (e instanceof VmException v) {
            err.println("jrunc-vm: " + v.getMessage());
            return v.exitCode();
        }
        err.println("jrunc-vm: " + e);
        return VmException.OWN_ERROR;
    }

    /** Where commands print (the streams given to {@link #run}). */
    static final class Output {
        static PrintStream out = System.out;
        static PrintStream err = System.err;
        /** Set when a terminal was put in raw mode ({@link HostTerminal#raw}), to be restored at the exit. */
        static volatile boolean terminalMadeRaw;
        /** Set by the monitor command: its process ends through the JVM's shutdown sequence. */
        static volatile boolean shutdownAtExit;

        private Output() {
        }
    }
}
