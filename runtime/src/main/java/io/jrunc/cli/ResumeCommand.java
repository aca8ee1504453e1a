package io.jrunc.cli;

import io.jrunc.runtime.Container;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParseResult;

final class ResumeCommand extends Subcommand {
    String id;

    @Override
    CommandSpec spec() {
        return Cli.command(this, "resume", "resumes all processes that have been previously paused",
                Cli.id());
    }

    @Override
    void read(ParseResult parsed) {
        id = parsed.matchedPositionalValue(0, id);
    }

    @Override
    public Integer call() {
        main.configure();
        Ids.require(id, "resume");
        try (Container c = Container.load(main.root, id)) {
            c.resume();
        }
        return 0;
    }
}
