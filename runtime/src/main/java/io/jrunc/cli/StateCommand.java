package io.jrunc.cli;

import io.jrunc.runtime.Container;
import io.jrunc.spec.Json;

final class StateCommand extends Subcommand {
    String id;

    @Override
    String name() {
        return "state";
    }

    @Override
    String description() {
        return "output the state of a container";
    }

    @Override
    void read(Arguments args) {
        id = args.positional(0);
    }

    @Override
    public Integer call() {
        try (Container c = Container.load(main.root, id)) {
            System.out.print(Json.writeIndented(c.runcState(), Json.STATE_INDENT));
            System.out.flush();
        }
        return 0;
    }
}
