package io.jrunc.cli;

import io.jrunc.runtime.Container;

final class ResumeCommand extends Subcommand {
    String id;

    @Override
    String name() {
        return "resume";
    }

    @Override
    String description() {
        return "resumes all processes that have been previously paused";
    }

    @Override
    void read(Arguments args) {
        id = args.positional(0);
    }

    @Override
    public Integer call() {
        try (Container c = Container.load(main.root, id)) {
            c.resume();
        }
        return 0;
    }
}
