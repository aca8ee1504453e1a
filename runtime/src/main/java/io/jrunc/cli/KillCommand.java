package io.jrunc.cli;

import io.jrunc.runtime.Container;
import io.jrunc.runtime.ContainerException;
import io.jrunc.runtime.Signals;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParseResult;

final class KillCommand extends Subcommand {
    boolean all;

    String id;

    String signal = "SIGTERM";

    @Override
    CommandSpec spec() {
        return Cli.command(this, "kill", "kill sends the specified signal (default: SIGTERM) to the container's init process",
                Cli.flag("all", "send the specified signal to all processes inside the container", "-a", "--all"),
                Cli.id(),
                Cli.positional("1", "0..1", "signal"));
    }

    @Override
    void read(ParseResult parsed) {
        all = parsed.matchedOptionValue("--all", all);
        id = parsed.matchedPositionalValue(0, id);
        signal = parsed.matchedPositionalValue(1, signal);
    }

    @Override
    public Integer call() {
        main.configure();
        Ids.require(id, "kill");
        int signo = Signals.parse(signal);
        try (Container c = Container.load(main.root, id)) {
            try {
                c.kill(signo, all);
            } catch (ContainerException e) {
                if (!all) {
                    throw e;
                }
            }
        }
        return 0;
    }
}
