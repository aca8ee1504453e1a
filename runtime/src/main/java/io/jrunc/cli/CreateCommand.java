package io.jrunc.cli;

import java.util.List;

import io.jrunc.runtime.Container;
import io.jrunc.runtime.ContainerException;
import io.jrunc.runtime.ContainerCreator;
import io.jrunc.runtime.RootlessConfig;
import io.jrunc.spec.Spec;
import io.jrunc.runtime.CreateOptions;
import java.nio.file.Path;

final class CreateCommand extends Subcommand {
    Path bundle = Path.of("");

    Path consoleSocket;

    Path pidfdSocket;

    Path pidFile;

    boolean noPivot;

    boolean noNewKeyring;

    int preserveFds;

    String id;

    /** The flags create and run share, as runc's create.go and run.go declare them. */
    static final List<Flag> CONTAINER_FLAGS = List.of(
            Flag.string("bundle, b", "path to the root of the bundle directory, defaults to the current directory"),
            Flag.string("console-socket",
                    "path to an AF_UNIX socket which will receive a file descriptor referencing the master end of the console's pseudoterminal"),
            Flag.string("pid-file", "specify the file to write the process id to"),
            Flag.bool("no-pivot", "do not use pivot root to jail process inside rootfs"),
            Flag.bool("no-new-keyring", "do not create a new session keyring for the container"),
            Flag.unsigned("preserve-fds", "pass N additional file descriptors to the container (default: 0)"));

    private static final List<Flag> FLAGS = Cli.concat(CONTAINER_FLAGS,
            Flag.string("pidfd-socket", "path to an AF_UNIX socket which will receive a pidfd (not supported)"));

    @Override
    String name() {
        return "create";
    }

    @Override
    String description() {
        return "create a container";
    }

    @Override
    List<Flag> flags() {
        return FLAGS;
    }

    @Override
    void read(Arguments args) {
        bundle = Path.of(args.string("bundle", ""));
        consoleSocket = Cli.path(args.string("console-socket", null));
        pidfdSocket = Cli.path(args.string("pidfd-socket", null));
        pidFile = Cli.path(args.string("pid-file", null));
        noPivot = args.flag("no-pivot");
        noNewKeyring = args.flag("no-new-keyring");
        preserveFds = args.integer("preserve-fds", 0);
        id = args.positional(0);
    }

    @Override
    public Integer call() throws java.io.IOException {
        if (pidfdSocket != null) {
            throw new ContainerException("--pidfd-socket is not supported by jrunc yet");
        }
        Main.failurePrefix = "jrunc create failed: ";
        Spec spec = ContainerCreator.loadBundle(id, bundle);
        if (UserNamespaceStage.needed()) {
            return UserNamespaceStage.createOrRun(spec, false);
        }
        if (UserNamespaceStage.isStage()) {
            UserNamespaceStage.verifyCreate(spec);
            spec = RootlessConfig.withUserNamespaceEntered(spec);
        }
        try (Container c = ContainerCreator.create(main.root,
                new CreateOptions(id, bundle, pidFile, consoleSocket, noPivot, noNewKeyring, preserveFds),
                main.systemdCgroup, spec)) {
            return 0;
        }
    }
}
