package io.jrunc.cli;

import java.util.List;

import io.jrunc.bindings.Signals;
import io.jrunc.runtime.Container;
import io.jrunc.runtime.ContainerException;

final class KillCommand extends Subcommand {
    boolean all;

    String id;

    String signal = "SIGTERM";

    private static final List<Flag> FLAGS = List.of(
            Flag.bool("all, a", "send the specified signal to all processes inside the container"));

    @Override
    int maxArguments() {
        return 2; // the id and the signal
    }

    @Override
    boolean exactArguments() {
        return false;
    }

    @Override
    String name() {
        return "kill";
    }

    @Override
    String description() {
        return "kill sends the specified signal (default: SIGTERM) to the container's init process";
    }

    @Override
    String argsUsage() {
        return "<container-id> [signal]";
    }

    @Override
    List<Flag> flags() {
        return FLAGS;
    }

    @Override
    void read(Arguments args) {
        all = args.flag("all");
        id = args.positional(0);
        if (args.positional(1) != null) {
            signal = args.positional(1);
        }
    }

    @Override
    public Integer call() {
        int signo = signalNumber(signal);
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

    /** runc's words for a signal it cannot send. */
    static int signalNumber(String signal) {
        Signals.Parsed parsed = Signals.parse(signal);
        if (parsed instanceof Signals.Parsed.Signal s) {
            return s.number();
        }
        if (parsed instanceof Signals.Parsed.OutOfRange) {
            throw new ContainerException("invalid signal: " + signal);
        }
        throw new ContainerException("unknown signal \"" + signal + "\"");
    }
}
