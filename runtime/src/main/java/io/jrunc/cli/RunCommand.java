package io.jrunc.cli;

import io.jrunc.runtime.Container;
import io.jrunc.runtime.ContainerCreator;
import io.jrunc.runtime.CreateOptions;
import io.jrunc.bindings.FileDescriptors;
import io.jrunc.runtime.ForegroundProcess;
import io.jrunc.runtime.TerminalProxy;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

@Command(name = "run", description = "create and run a container")
final class RunCommand implements Callable<Integer> {
    @ParentCommand Main main;

    @Option(names = {"-b", "--bundle"}) Path bundle = Path.of("");
    @Option(names = "--console-socket") Path consoleSocket;
    @Option(names = "--pid-file") Path pidFile;
    @Option(names = {"-d", "--detach"}, description = "detach from the container's process") boolean detach;
    @Option(names = "--keep", description = "do not delete the container after it exits") boolean keep;
    @Option(names = "--no-subreaper") boolean noSubreaper;
    @Option(names = "--no-pivot") boolean noPivot;
    @Option(names = "--no-new-keyring") boolean noNewKeyring;
    @Option(names = "--preserve-fds") int preserveFds;

    @Parameters(index = "0", arity = "0..1") String id;

    private static TerminalProxy receiveConsole(int[] console) {
        FileDescriptors.closeQuietly(console[0]);
        try {
            return TerminalProxy.receive(console[1]);
        } finally {
            FileDescriptors.closeQuietly(console[1]);
        }
    }

    @Override
    public Integer call() {
        main.configure();
        Main.failurePrefix = "jrunc run failed: ";
        Ids.require(id, "run");
        // Like runc: a terminal without a console socket in the foreground means jrunc itself holds
        // the pty and connects it to its own stdio.
        int[] console = !detach && consoleSocket == null && ContainerCreator.wantsTerminal(bundle)
                ? TerminalProxy.socketPair() : null;
        Container c;
        try {
            c = ContainerCreator.create(main.root, new CreateOptions(id, bundle, pidFile, consoleSocket, noPivot,
                    noNewKeyring, preserveFds, console == null ? -1 : console[0]), main.systemdCgroup);
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
