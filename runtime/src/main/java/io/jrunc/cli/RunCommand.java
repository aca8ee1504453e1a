package io.jrunc.cli;

import java.util.List;

import io.jrunc.runtime.Container;
import io.jrunc.runtime.ContainerCreator;
import io.jrunc.runtime.RootlessConfig;
import io.jrunc.runtime.CreateOptions;
import io.jrunc.bindings.FileDescriptors;
import io.jrunc.runtime.ForegroundProcess;
import io.jrunc.runtime.TerminalProxy;
import io.jrunc.spec.Spec;
import java.nio.file.Path;

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

    private static final List<Flag> FLAGS = Cli.concat(CreateCommand.CONTAINER_FLAGS,
            Flag.bool("detach, d", "detach from the container's process"),
            Flag.bool("keep", "do not delete the container after it exits"),
            Flag.bool("no-subreaper", "disable the use of the subreaper used to reap reparented processes"));

    @Override
    String name() {
        return "run";
    }

    @Override
    String description() {
        return "create and run a container";
    }

    @Override
    List<Flag> flags() {
        return FLAGS;
    }

    @Override
    void read(Arguments args) {
        bundle = Path.of(args.string("bundle", ""));
        consoleSocket = Cli.path(args.string("console-socket", null));
        pidFile = Cli.path(args.string("pid-file", null));
        detach = args.flag("detach");
        keep = args.flag("keep");
        noSubreaper = args.flag("no-subreaper");
        noPivot = args.flag("no-pivot");
        noNewKeyring = args.flag("no-new-keyring");
        preserveFds = args.integer("preserve-fds", 0);
        id = args.positional(0);
    }

    @Override
    public Integer call() throws java.io.IOException {
        Main.failurePrefix = "jrunc run failed: ";
        // Like runc: a terminal without a console socket in the foreground means jrunc itself holds
        // the pty and connects it to its own stdio.
        Spec spec = ContainerCreator.loadBundle(id, bundle);
        if (UserNamespaceStage.needed()) {
            return UserNamespaceStage.createOrRun(spec, !detach);
        }
        if (UserNamespaceStage.isStage()) {
            UserNamespaceStage.verifyCreate(spec);
            spec = RootlessConfig.withUserNamespaceEntered(spec);
        }
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
