package io.jrunc.cli;

import java.util.List;

import io.jrunc.runtime.ContainerException;
import io.jrunc.spec.DefaultSpec;
import io.jrunc.spec.Json;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

final class SpecCommand extends Subcommand {
    Path bundle = Path.of("");

    boolean rootless;

    private static final List<Flag> FLAGS = List.of(
            Flag.string("bundle, b", "path to the root of the bundle directory"),
            Flag.bool("rootless", "generate a configuration for a rootless container"));

    @Override
    int maxArguments() {
        return 0;
    }

    @Override
    String name() {
        return "spec";
    }

    @Override
    String description() {
        return "create a new specification file";
    }

    @Override
    String argsUsage() {
        return "";
    }

    @Override
    List<Flag> flags() {
        return FLAGS;
    }

    @Override
    void read(Arguments args) {
        bundle = Path.of(args.string("bundle", ""));
        rootless = args.flag("rootless");
    }

    @Override
    public Integer call() throws IOException {
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
