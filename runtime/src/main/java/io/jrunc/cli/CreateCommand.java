package io.jrunc.cli;

import io.jrunc.runtime.Container;
import io.jrunc.runtime.ContainerException;
import io.jrunc.runtime.ContainerCreator;
import io.jrunc.runtime.CreateOptions;
import java.nio.file.Path;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParseResult;

final class CreateCommand extends Subcommand {
    Path bundle = Path.of("");

    Path consoleSocket;

    Path pidfdSocket;

    Path pidFile;

    boolean noPivot;

    boolean noNewKeyring;

    int preserveFds;

    String id;

    @Override
    CommandSpec spec() {
        return Cli.command(this, "create", "create a container",
                Cli.option("bundle", Path.class, "path to the root of the bundle directory", "-b", "--bundle"),
                Cli.option("consoleSocket", Path.class, "path to an AF_UNIX socket which will receive the pty master",
                        "--console-socket"),
                Cli.option("pidfdSocket", Path.class,
                        "path to an AF_UNIX socket which will receive a pidfd (not supported)", "--pidfd-socket"),
                Cli.option("pidFile", Path.class, "specify the file to write the process id to", "--pid-file"),
                Cli.flag("noPivot", "do not use pivot root to jail process inside rootfs", "--no-pivot"),
                Cli.flag("noNewKeyring", "do not create a new session keyring for the container", "--no-new-keyring"),
                Cli.option("preserveFds", int.class, "pass N additional file descriptors to the container",
                        "--preserve-fds"),
                Cli.id());
    }

    @Override
    void read(ParseResult parsed) {
        bundle = parsed.matchedOptionValue("--bundle", bundle);
        consoleSocket = parsed.matchedOptionValue("--console-socket", consoleSocket);
        pidfdSocket = parsed.matchedOptionValue("--pidfd-socket", pidfdSocket);
        pidFile = parsed.matchedOptionValue("--pid-file", pidFile);
        noPivot = parsed.matchedOptionValue("--no-pivot", noPivot);
        noNewKeyring = parsed.matchedOptionValue("--no-new-keyring", noNewKeyring);
        preserveFds = parsed.matchedOptionValue("--preserve-fds", preserveFds);
        id = parsed.matchedPositionalValue(0, id);
    }

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
