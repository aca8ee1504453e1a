package io.jrunc.cli;

import io.jrunc.runtime.Container;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

@Command(name = "start", description = "executes the user defined process in a created container")
final class StartCommand implements Callable<Integer> {
    @ParentCommand Main main;

    @Parameters(index = "0", arity = "0..1") String id;

    @Override
    public Integer call() {
        main.configure();
        Ids.require(id, "start");
        try (Container c = Container.load(main.root, id)) {
            c.start();
        }
        return 0;
    }
}
