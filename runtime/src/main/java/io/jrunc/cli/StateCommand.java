package io.jrunc.cli;

import io.jrunc.runtime.Container;
import io.jrunc.spec.Json;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParseResult;

final class StateCommand extends Subcommand {
    String id;

    @Override
    CommandSpec spec() {
        return Cli.command(this, "state", "output the state of a container",
                Cli.id());
    }

    @Override
    void read(ParseResult parsed) {
        id = parsed.matchedPositionalValue(0, id);
    }

    @Override
    public Integer call() {
        main.configure();
        Ids.require(id, "state");
        try (Container c = Container.load(main.root, id)) {
            System.out.print(Json.writeIndented(c.runcState(), Json.STATE_INDENT));
            System.out.flush();
        }
        return 0;
    }
}
