package io.jrunc.cli;

import io.jrunc.runtime.Container;
import io.jrunc.runtime.ContainerCreator;
import io.jrunc.runtime.CreateOptions;
import io.jrunc.runtime.ForegroundProcess;
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

    @Override
    public Integer call() {
        main.configure();
        Main.failurePrefix = "jrunc run failed: ";
        Ids.require(id, "run");
        Container c = ContainerCreator.create(main.root,
                new CreateOptions(id, bundle, pidFile, consoleSocket, noPivot, noNewKeyring, preserveFds),
                main.systemdCgroup);
        try (c) {
            if (detach) {
                c.start();
                return 0;
            }
            ForegroundProcess foreground = ForegroundProcess.forwardSignalsTo(c.state().pid());
            c.start();
            int status = foreground.waitForExit();
            if (!keep) {
                c.delete(true);
            }
            return status;
        } catch (RuntimeException e) {
            if (!keep) {
                try {
                    c.delete(true);
                } catch (RuntimeException ignored) {
                    // report the first failure
                }
            }
            throw e;
        }
    }
}
