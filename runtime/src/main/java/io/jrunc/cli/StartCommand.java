package io.jrunc.cli;

import io.jrunc.runtime.Container;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParseResult;

final class StartCommand extends Subcommand {
    String id;

    @Override
    CommandSpec spec() {
        return Cli.command(this, "start", "executes the user defined process in a created container",
                Cli.id());
    }

    @Override
    void read(ParseResult parsed) {
        id = parsed.matchedPositionalValue(0, id);
    }

    @Override
    public Integer call() {
        main.configure();
        Ids.require(id, "start");
        try (Container c = Container.load(main.root, id)) {
            c.start();
        }
        return 0;
    }
}
