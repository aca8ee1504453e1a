package io.jrunc.cli;

import io.jrunc.runtime.Container;
import io.jrunc.spec.Json;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

@Command(name = "state", description = "output the state of a container")
final class StateCommand implements Callable<Integer> {
    @ParentCommand Main main;

    @Parameters(index = "0", arity = "0..1") String id;

    @Override
    public Integer call() {
        main.configure();
        Ids.require(id, "state");
        try (Container c = Container.load(main.root, id)) {
            System.out.print(Json.writeIndented(c.runcState(), Json.STATE_INDENT));
            System.out.flush();
        }
        return 0;
    }
}
