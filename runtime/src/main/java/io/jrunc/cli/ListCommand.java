package io.jrunc.cli;

import io.jrunc.runtime.Container;
import io.jrunc.runtime.ContainerException;
import io.jrunc.spec.Json;
import io.jrunc.spec.RuncState;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

final class ListCommand extends Subcommand {
    String format = "table";

    boolean quiet;

    private static final List<Flag> FLAGS = List.of(
            Flag.string("format, f", "select one of: table or json (default: \"table\")"),
            Flag.bool("quiet, q", "display only container IDs"));

    @Override
    int maxArguments() {
        return 0;
    }

    @Override
    String name() {
        return "list";
    }

    @Override
    String description() {
        return "lists containers started by jrunc with the given root";
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
        format = args.string("format", format);
        quiet = args.flag("quiet");
    }

    @Override
    public Integer call() throws IOException {
        if (!format.equals("table") && !format.equals("json")) {
            throw new ContainerException("invalid format option");
        }
        List<RuncState> states = new ArrayList<>();
        List<String> owners = new ArrayList<>();
        if (Files.isDirectory(main.root)) {
            try (Stream<Path> dirs = Files.list(main.root)) {
                for (Path dir : dirs.sorted().toList()) {
                    if (!Files.isRegularFile(dir.resolve("state.json"))) {
                        continue;
                    }
                    try (Container c = Container.load(main.root, dir.getFileName().toString())) {
                        states.add(c.runcState());
                        owners.add(Files.getOwner(dir).getName());
                    } catch (ContainerException e) {
                        // deleted while listing
                    }
                }
            }
        }
        if (quiet) {
            states.forEach(s -> System.out.println(s.id()));
        } else if (format.equals("json")) {
            List<RuncState> withOwner = new ArrayList<>();
            for (int i = 0; i < states.size(); i++) {
                RuncState s = states.get(i);
                withOwner.add(new RuncState(s.ociVersion(), s.id(), s.pid(), s.status(), s.bundle(), s.rootfs(),
                        s.created(), s.annotations(), owners.get(i)));
            }
            System.out.println(withOwner.isEmpty() ? "null" : Json.write(withOwner));
        } else {
            Table table = new Table("ID", "PID", "STATUS", "BUNDLE", "CREATED", "OWNER");
            for (int i = 0; i < states.size(); i++) {
                RuncState s = states.get(i);
                table.row(s.id(), Integer.toString(s.pid()), s.status().toString().toLowerCase(), s.bundle(),
                        io.jrunc.spec.GoTime.format(s.created()), owners.get(i));
            }
            System.out.print(table);
        }
        System.out.flush();
        return 0;
    }
}
