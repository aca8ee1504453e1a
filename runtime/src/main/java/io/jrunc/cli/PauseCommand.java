package io.jrunc.cli;

import io.jrunc.runtime.Container;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

@Command(name = "pause", description = "pause suspends all processes inside the container")
final class PauseCommand implements Callable<Integer> {
    @ParentCommand Main main;

    @Parameters(index = "0", arity = "0..1") String id;

    @Override
    public Integer call() {
        main.configure();
        Ids.require(id, "pause");
        try (Container c = Container.load(main.root, id)) {
            c.pause();
        }
        return 0;
    }
}
