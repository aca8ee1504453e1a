package io.jrunc.cli;

import io.jrunc.runtime.Container;
import io.jrunc.runtime.ContainerException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

final class PsCommand extends Subcommand {
    String format = "table";

    String id;

    List<String> psArgs = new ArrayList<>();

    private static final List<Flag> FLAGS = List.of(
            Flag.string("format, f", "select one of: table or json (default: \"table\")"));

    @Override
    boolean processArguments() {
        return true;
    }

    @Override
    String name() {
        return "ps";
    }

    @Override
    String description() {
        return "ps displays the processes running inside a container";
    }

    @Override
    String argsUsage() {
        return "<container-id> [ps options]";
    }

    @Override
    List<Flag> flags() {
        return FLAGS;
    }

    @Override
    void read(Arguments args) {
        format = args.string("format", format);
        id = args.positional(0);
        psArgs = args.positionalFrom(1);
    }

    @Override
    public Integer call() throws IOException, InterruptedException {
        List<Long> pids;
        try (Container c = Container.load(main.root, id)) {
            pids = c.processes();
        }
        if (format.equals("json")) {
            // runc's json.Marshal of the pids; written by hand, as databind is too costly to start for it
            StringBuilder out = new StringBuilder("[");
            for (int i = 0; i < pids.size(); i++) {
                out.append(i == 0 ? "" : ",").append(pids.get(i));
            }
            System.out.println(out.append(']'));
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
