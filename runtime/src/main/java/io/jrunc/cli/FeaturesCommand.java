package io.jrunc.cli;

import io.jrunc.runtime.RuntimeFeatures;
import io.jrunc.spec.Json;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParseResult;

final class FeaturesCommand extends Subcommand {
    @Override
    CommandSpec spec() {
        return Cli.command(this, "features", "show the enabled features");
    }

    @Override
    void read(ParseResult parsed) {
    }

    @Override
    public Integer call() {
        main.configure();
        System.out.println(Json.writeFeatures(RuntimeFeatures.of(Main.VERSION)));
        return 0;
    }
}
