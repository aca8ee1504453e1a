package io.jrunc.cli;

import java.util.List;

import io.jrunc.runtime.Container;
import io.jrunc.runtime.ContainerDirectory;
import io.jrunc.runtime.ContainerException;
import io.jrunc.runtime.ContainerId;
import java.nio.file.Files;

final class DeleteCommand extends Subcommand {
    boolean force;

    String id;

    private static final List<Flag> FLAGS = List.of(
            Flag.bool("force, f", "forcibly deletes the container if it is still running (uses SIGKILL)"));

    @Override
    String name() {
        return "delete";
    }

    @Override
    String description() {
        return "delete any resources held by the container often used with detached container";
    }

    @Override
    List<Flag> flags() {
        return FLAGS;
    }

    @Override
    void read(Arguments args) {
        force = args.flag("force");
        id = args.positional(0);
    }

    @Override
    public Integer call() {
        // Checked before anything is removed: ROOT/ID is only a container's directory for a valid id
        // ("../x" would name a directory outside the root, "" the root itself).
        ContainerId.validate(id);
        Container c;
        try {
            c = Container.load(main.root, id);
        } catch (ContainerException e) {
            // runc removes ROOT/ID anyway (a half-created leftover) and succeeds with --force; jrunc
            // first undoes what a create killed halfway had made (CreateJournal).
            if (!Files.exists(main.root.resolve(id).resolve("state.json"))) {
                if (!ContainerDirectory.removeHalfCreated(main.root, id)) {
                    return call(); // a create still running finished while we waited for its lock
                }
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
