package io.jrunc.vm.cli;

import io.jrunc.vm.ContainerUpdates;
import io.jrunc.vm.Sizes;
import io.jrunc.vm.VmException;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/** `jrunc-vm update`: a running container's memory limit and swap cap, applied by the guest. */
@Command(name = "update", mixinStandardHelpOptions = true,
        description = "Change a running container's memory limit and swap cap (swap alone, read against the memory limit).")
final class ContainerUpdate implements Callable<Integer> {
    @ParentCommand
    Main main;
    @Option(names = {"-m", "--memory"}, description = "the new memory limit, e.g. 64m (the swap cap stays what it was)")
    String memory;
    @Option(names = "--swap", description = "the new swap cap, swap alone, e.g. 96m")
    String swap;
    @Parameters(paramLabel = "CONTAINER")
    String name;

    @Override
    public Integer call() throws VmException {
        new ContainerUpdates(main.containers()).update(name, memory == null ? null : Sizes.parse(memory, "--memory"),
                swap == null ? null : Sizes.parse(swap, "--swap"));
        Main.Output.out.println(name);
        return 0;
    }
}
