package io.jrunc.cli;

import io.jrunc.runtime.Container;
import io.jrunc.runtime.ContainerException;
import io.jrunc.spec.Json;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParseResult;

final class PsCommand extends Subcommand {
    String format = "table";

    String id;

    List<String> psArgs = new ArrayList<>();

    @Override
    CommandSpec spec() {
        return Cli.command(this, "ps", "ps displays the processes running inside a container",
                Cli.option("format", String.class, null, "-f", "--format"),
                Cli.id(),
                Cli.rest("psArgs"));
    }

    @Override
    void read(ParseResult parsed) {
        format = parsed.matchedOptionValue("--format", format);
        id = parsed.matchedPositionalValue(0, id);
        psArgs = parsed.matchedPositionalValue(1, psArgs);
    }

    @Override
    public Integer call() throws IOException, InterruptedException {
        main.configure();
        Ids.require(id, "ps");
        List<Long> pids;
        try (Container c = Container.load(main.root, id)) {
            pids = c.processes();
        }
        if (format.equals("json")) {
            System.out.println(Json.write(pids));
            return 0;
        }
        if (!format.equals("table")) {
            throw new ContainerException("invalid format option");
        }
        // Like runc: run the host's ps and keep the header and the lines of the container's processes.
        List<String> command = new ArrayList<>(List.of("ps"));
        command.addAll(psArgs.isEmpty() ? List.of("-ef") : psArgs);
        Process ps = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(ps.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (ps.waitFor() != 0) {
            throw new ContainerException("ps: " + output.strip());
        }
        String[] lines = output.split("\n");
        int pidColumn = List.of(lines[0].trim().split("\\s+")).indexOf("PID");
        if (pidColumn < 0) {
            throw new ContainerException("couldn't find PID field in ps output");
        }
        Set<String> wanted = pids.stream().map(String::valueOf).collect(Collectors.toSet());
        StringBuilder out = new StringBuilder(lines[0]).append('\n');
        for (int i = 1; i < lines.length; i++) {
            String[] fields = lines[i].trim().split("\\s+");
            if (fields.length > pidColumn && wanted.contains(fields[pidColumn])) {
                out.append(lines[i]).append('\n');
            }
        }
        System.out.print(out);
        return 0;
    }
}
