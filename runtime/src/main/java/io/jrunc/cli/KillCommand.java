package io.jrunc.cli;

import io.jrunc.runtime.Container;
import io.jrunc.runtime.ContainerException;
import io.jrunc.runtime.Signals;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

@Command(name = "kill", description = "kill sends the specified signal (default: SIGTERM) to the container's init process")
final class KillCommand implements Callable<Integer> {
    @ParentCommand Main main;

    @Option(names = {"-a", "--all"}, description = "send the specified signal to all processes inside the container")
    boolean all;

    @Parameters(index = "0", arity = "0..1") String id;

    @Parameters(index = "1", arity = "0..1") String signal = "SIGTERM";

    @Override
    public Integer call() {
        main.configure();
        Ids.require(id, "kill");
        int signo = Signals.parse(signal);
        try (Container c = Container.load(main.root, id)) {
            try {
                c.kill(signo, all);
            } catch (ContainerException e) {
                if (!all) {
                    throw e;
                }
            }
        }
        return 0;
    }
}
