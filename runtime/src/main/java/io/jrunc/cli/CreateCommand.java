package io.jrunc.cli;

import io.jrunc.runtime.Container;
import io.jrunc.runtime.ContainerException;
import io.jrunc.runtime.ContainerCreator;
import io.jrunc.runtime.CreateOptions;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

@Command(name = "create", description = "create a container")
final class CreateCommand implements Callable<Integer> {
    @ParentCommand Main main;

    @Option(names = {"-b", "--bundle"}, description = "path to the root of the bundle directory")
    Path bundle = Path.of("");

    @Option(names = "--console-socket", description = "path to an AF_UNIX socket which will receive the pty master")
    Path consoleSocket;

    @Option(names = "--pidfd-socket", description = "path to an AF_UNIX socket which will receive a pidfd (not supported)")
    Path pidfdSocket;

    @Option(names = "--pid-file", description = "specify the file to write the process id to")
    Path pidFile;

    @Option(names = "--no-pivot", description = "do not use pivot root to jail process inside rootfs")
    boolean noPivot;

    @Option(names = "--no-new-keyring", description = "do not create a new session keyring for the container")
    boolean noNewKeyring;

    @Option(names = "--preserve-fds", description = "pass N additional file descriptors to the container")
    int preserveFds;

    @Parameters(index = "0", arity = "0..1") String id;

    @Override
    public Integer call() {
        main.configure();
        if (pidfdSocket != null) {
            throw new ContainerException("--pidfd-socket is not supported by jrunc yet");
        }
        Main.failurePrefix = "jrunc create failed: ";
        Ids.require(id, "create");
        try (Container c = ContainerCreator.create(main.root,
                new CreateOptions(id, bundle, pidFile, consoleSocket, noPivot, noNewKeyring, preserveFds),
                main.systemdCgroup)) {
            return 0;
        }
    }
}
