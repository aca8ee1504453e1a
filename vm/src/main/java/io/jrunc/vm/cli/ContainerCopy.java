package io.jrunc.vm.cli;

import io.jrunc.vm.VmException;
import io.jrunc.vm.copy.ContainerCopies;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/** `jrunc-vm cp`: files and directories between the host and a container, with docker cp's rules. */
@Command(name = "cp", mixinStandardHelpOptions = true,
        description = {"Copy files and directories between the host and a container's root filesystem.",
                "One of SRC and DST is CONTAINER:PATH; PATH is taken from the container's / and resolves inside it.",
                "Modes, owners and modification times are kept; symbolic links are copied as links.",
                "SRC ending in /. copies a directory's contents; a missing DST is created (its directory must exist).",
                "SRC - reads a tar stream from stdin into the directory DST; DST - writes SRC to stdout as a tar stream."})
final class ContainerCopy implements Callable<Integer> {
    @ParentCommand
    Main main;
    @Option(names = {"-L", "--follow-link"}, description = "follow a symbolic link named by SRC (its target is copied)")
    boolean followLink;
    @Parameters(index = "0", paramLabel = "SRC")
    String source;
    @Parameters(index = "1", paramLabel = "DST")
    String destination;

    @Override
    public Integer call() throws VmException {
        new ContainerCopies(main.containers()).copy(source, destination, followLink, System.in, Main.Output.out);
        Main.Output.out.flush();
        return 0;
    }
}
