package io.jrunc.cli;

import io.jrunc.runtime.ContainerException;
import io.jrunc.spec.DefaultSpec;
import io.jrunc.spec.Json;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParseResult;

final class SpecCommand extends Subcommand {
    Path bundle = Path.of("");

    boolean rootless;

    @Override
    CommandSpec spec() {
        return Cli.command(this, "spec", "create a new specification file",
                Cli.option("bundle", Path.class, "path to the root of the bundle directory", "-b", "--bundle"),
                Cli.flag("rootless", "generate a configuration for a rootless container", "--rootless"));
    }

    @Override
    void read(ParseResult parsed) {
        bundle = parsed.matchedOptionValue("--bundle", bundle);
        rootless = parsed.matchedOptionValue("--rootless", rootless);
    }

    @Override
    public Integer call() throws IOException {
        main.configure();
        if (!Files.isDirectory(bundle)) {
            throw new ContainerException("open " + bundle.resolve("config.json") + ": no such file or directory");
        }
        Path config = bundle.resolve("config.json");
        if (Files.exists(config)) {
            throw new ContainerException("File config.json exists. Remove it first.");
        }
        Files.writeString(config, Json.writeIndented(DefaultSpec.forThisHost(rootless), Json.SPEC_INDENT));
        return 0;
    }
}
