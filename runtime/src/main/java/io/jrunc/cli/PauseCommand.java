package io.jrunc.cli;

import io.jrunc.runtime.Container;

final class PauseCommand extends Subcommand {
    String id;

    @Override
    String name() {
        return "pause";
    }

    @Override
    String description() {
        return "pause suspends all processes inside the container";
    }

    @Override
    void read(Arguments args) {
        id = args.positional(0);
    }

    @Override
    public Integer call() {
        try (Container c = Container.load(main.root, id)) {
            c.pause();
        }
        return 0;
    }
}
