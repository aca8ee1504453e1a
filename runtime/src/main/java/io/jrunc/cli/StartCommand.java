package io.jrunc.cli;

import io.jrunc.runtime.Container;

final class StartCommand extends Subcommand {
    String id;

    @Override
    String name() {
        return "start";
    }

    @Override
    String description() {
        return "executes the user defined process in a created container";
    }

    @Override
    void read(Arguments args) {
        id = args.positional(0);
    }

    @Override
    public Integer call() {
        try (Container c = Container.load(main.root, id)) {
            c.start();
        }
        return 0;
    }
}
