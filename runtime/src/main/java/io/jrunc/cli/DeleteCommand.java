package io.jrunc.cli;

import io.jrunc.runtime.Container;
import io.jrunc.runtime.ContainerDirectory;
import io.jrunc.runtime.ContainerException;
import java.nio.file.Files;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

@Command(name = "delete", description = "delete any resources held by the container often used with detached container")
final class DeleteCommand implements Callable<Integer> {
    @ParentCommand Main main;

    @Option(names = {"-f", "--force"}, description = "forcibly deletes the container if it is still running (uses SIGKILL)")
    boolean force;

    @Parameters(index = "0", arity = "0..1") String id;

    @Override
    public Integer call() {
        main.configure();
        Ids.require(id, "delete");
        Container c;
        try {
            c = Container.load(main.root, id);
        } catch (ContainerException e) {
            // runc removes ROOT/ID anyway (a half-created leftover) and succeeds with --force.
            if (!Files.exists(main.root.resolve(id).resolve("state.json"))) {
                ContainerDirectory.removeTree(main.root.resolve(id));
                if (force) {
                    return 0;
                }
            }
            throw e;
        }
        try (c) {
            c.delete(force);
        }
        return 0;
    }
}
