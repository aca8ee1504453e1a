package io.jrunc.cli;

import io.jrunc.runtime.Container;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

@Command(name = "resume", description = "resumes all processes that have been previously paused")
final class ResumeCommand implements Callable<Integer> {
    @ParentCommand Main main;

    @Parameters(index = "0", arity = "0..1") String id;

    @Override
    public Integer call() {
        main.configure();
        Ids.require(id, "resume");
        try (Container c = Container.load(main.root, id)) {
            c.resume();
        }
        return 0;
    }
}
