package io.jrunc.cli;

import io.jrunc.runtime.Container;
import io.jrunc.runtime.ContainerCreator;
import io.jrunc.runtime.CreateOptions;
import io.jrunc.bindings.FileDescriptors;
import io.jrunc.runtime.ForegroundProcess;
import io.jrunc.runtime.TerminalProxy;
import io.jrunc.spec.Spec;
import java.nio.file.Path;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParseResult;

final class RunCommand extends Subcommand {
    Path bundle = Path.of("");
    Path consoleSocket;
    Path pidFile;
    boolean detach;
    boolean keep;
    boolean noSubreaper;
    boolean noPivot;
    boolean noNewKeyring;
    int preserveFds;

    String id;

    private static TerminalProxy receiveConsole(int[] console) {
        FileDescriptors.closeQuietly(console[0]);
        try {
            return TerminalProxy.receive(console[1]);
        } finally {
            FileDescriptors.closeQuietly(console[1]);
        }
    }

    @Override
    CommandSpec spec() {
        return Cli.command(this, "run", "create and run a container",
                Cli.option("bundle", Path.class, null, "-b", "--bundle"),
                Cli.option("consoleSocket", Path.class, null, "--console-socket"),
                Cli.option("pidFile", Path.class, null, "--pid-file"),
                Cli.flag("detach", "detach from the container's process", "-d", "--detach"),
                Cli.flag("keep", "do not delete the container after it exits", "--keep"),
                Cli.flag("noSubreaper", null, "--no-subreaper"),
                Cli.flag("noPivot", null, "--no-pivot"),
                Cli.flag("noNewKeyring", null, "--no-new-keyring"),
                Cli.option("preserveFds", int.class, null, "--preserve-fds"),
                Cli.id());
    }

    @Override
    void read(ParseResult parsed) {
        bundle = parsed.matchedOptionValue("--bundle", bundle);
        consoleSocket = parsed.matchedOptionValue("--console-socket", consoleSocket);
        pidFile = parsed.matchedOptionValue("--pid-file", pidFile);
        detach = parsed.matchedOptionValue("--detach", detach);
        keep = parsed.matchedOptionValue("--keep", keep);
        noSubreaper = parsed.matchedOptionValue("--no-subreaper", noSubreaper);
        noPivot = parsed.matchedOptionValue("--no-pivot", noPivot);
        noNewKeyring = parsed.matchedOptionValue("--no-new-keyring", noNewKeyring);
        preserveFds = parsed.matchedOptionValue("--preserve-fds", preserveFds);
        id = parsed.matchedPositionalValue(0, id);
    }

    @Override
    public Integer call() {
        main.configure();
        Main.failurePrefix = "jrunc run failed: ";
        Ids.require(id, "run");
        // Like runc: a terminal without a console socket in the foreground means jrunc itself holds
        // the pty and connects it to its own stdio.
        Spec spec = ContainerCreator.loadBundle(id, bundle);
        boolean terminal = spec.process() != null && Boolean.TRUE.equals(spec.process().terminal());
        int[] console = !detach && consoleSocket == null && terminal ? TerminalProxy.socketPair() : null;
        Container c;
        try {
            c = ContainerCreator.create(main.root, new CreateOptions(id, bundle, pidFile, consoleSocket, noPivot,
                    noNewKeyring, preserveFds, console == null ? -1 : console[0]), main.systemdCgroup, spec);
        } catch (RuntimeException e) {
            if (console != null) {
                FileDescriptors.closeQuietly(console[0]);
                FileDescriptors.closeQuietly(console[1]);
            }
            throw e;
        }
        int pid = c.state().pid();
        TerminalProxy tty = null;
        ForegroundProcess foreground = null;
        try (c) {
            if (!detach) {
                tty = console == null ? null : receiveConsole(console);
                foreground = ForegroundProcess.forwardSignalsTo(pid);
            }
            c.start();
        } catch (RuntimeException e) {
            if (tty != null) {
                tty.close();
            }
            deleteUnlessKept();
            throw e;
        }
        if (detach) {
            return 0;
        }
        // The container's lock is released while it runs, so `state`, `kill` and `exec` by others work.
        int status;
        if (tty != null) {
            try (TerminalProxy t = tty) {
                t.drainOutput();
                status = foreground.waitForExit();
            }
        } else {
            status = foreground.waitForExit();
        }
        deleteUnlessKept();
        return status;
    }

    private void deleteUnlessKept() {
        if (keep) {
            return;
        }
        try (Container c = Container.load(main.root, id)) {
            c.delete(true);
        } catch (RuntimeException ignored) {
            // already deleted by someone else, or the first failure is being reported
        }
    }
}
