package io.jrunc.cli;

import io.jrunc.runtime.Container;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParseResult;

final class PauseCommand extends Subcommand {
    String id;

    @Override
    CommandSpec spec() {
        return Cli.command(this, "pause", "pause suspends all processes inside the container",
                Cli.id());
    }

    @Override
    void read(ParseResult parsed) {
        id = parsed.matchedPositionalValue(0, id);
    }

    @Override
    public Integer call() {
        main.configure();
        Ids.require(id, "pause");
        try (Container c = Container.load(main.root, id)) {
            c.pause();
        }
        return 0;
    }
}
