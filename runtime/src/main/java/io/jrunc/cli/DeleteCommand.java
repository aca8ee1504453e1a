package io.jrunc.cli;

import io.jrunc.runtime.Container;
import io.jrunc.runtime.ContainerDirectory;
import io.jrunc.runtime.ContainerException;
import java.nio.file.Files;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParseResult;

final class DeleteCommand extends Subcommand {
    boolean force;

    String id;

    @Override
    CommandSpec spec() {
        return Cli.command(this, "delete", "delete any resources held by the container often used with detached container",
                Cli.flag("force", "forcibly deletes the container if it is still running (uses SIGKILL)", "-f", "--force"),
                Cli.id());
    }

    @Override
    void read(ParseResult parsed) {
        force = parsed.matchedOptionValue("--force", force);
        id = parsed.matchedPositionalValue(0, id);
    }

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
