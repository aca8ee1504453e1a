package io.jrunc.cli;

import io.jrunc.runtime.ContainerException;
import io.jrunc.spec.DefaultSpec;
import io.jrunc.spec.Json;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

@Command(name = "spec", description = "create a new specification file")
final class SpecCommand implements Callable<Integer> {
    @ParentCommand Main main;

    @Option(names = {"-b", "--bundle"}, description = "path to the root of the bundle directory")
    Path bundle = Path.of("");

    @Option(names = "--rootless", description = "generate a configuration for a rootless container")
    boolean rootless;

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
