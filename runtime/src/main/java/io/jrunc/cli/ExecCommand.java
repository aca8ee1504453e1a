package io.jrunc.cli;

import io.jrunc.runtime.Container;
import io.jrunc.runtime.ContainerException;
import io.jrunc.runtime.ContainerExec;
import io.jrunc.runtime.ExecOptions;
import io.jrunc.spec.LinuxCapabilities;
import io.jrunc.spec.Process;
import io.jrunc.spec.SpecException;
import io.jrunc.spec.SpecLoader;
import io.jrunc.spec.User;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

@Command(name = "exec", description = "execute new process inside the container")
final class ExecCommand implements Callable<Integer> {
    @ParentCommand Main main;

    @Option(names = "--console-socket") Path consoleSocket;
    @Option(names = "--pidfd-socket") Path pidfdSocket;
    @Option(names = "--cwd") String cwd;
    @Option(names = {"-e", "--env"}) List<String> env = new ArrayList<>();
    @Option(names = {"-t", "--tty"}) boolean tty;
    @Option(names = {"-u", "--user"}) String user;
    @Option(names = {"-g", "--additional-gids"}) List<Long> additionalGids = new ArrayList<>();
    @Option(names = {"-p", "--process"}) Path processFile;
    @Option(names = {"-d", "--detach"}) boolean detach;
    @Option(names = "--pid-file") Path pidFile;
    @Option(names = "--process-label") String processLabel;
    @Option(names = "--apparmor") String apparmor;
    @Option(names = "--no-new-privs") boolean noNewPrivs;
    @Option(names = {"-c", "--cap"}) List<String> caps = new ArrayList<>();
    @Option(names = "--preserve-fds") int preserveFds;
    @Option(names = "--cgroup") List<String> cgroup = new ArrayList<>();
    @Option(names = "--ignore-paused") boolean ignorePaused;

    @Parameters(index = "0", arity = "0..1") String id;
    @Parameters(index = "1..*") List<String> args = new ArrayList<>();

    @Override
    public Integer call() throws Exception {
        main.configure();
        if (pidfdSocket != null) {
            throw new ContainerException("--pidfd-socket is not supported by jrunc yet");
        }
        Main.failurePrefix = "jrunc exec failed: ";
        Ids.require(id, "exec");
        if (processLabel != null || apparmor != null) {
            throw new ContainerException("--process-label and --apparmor are not supported by jrunc yet");
        }
        if (!cgroup.isEmpty()) {
            throw new ContainerException("--cgroup: sub-cgroups for exec are not supported by jrunc yet");
        }
        try (Container c = Container.load(main.root, id)) {
            Process process = processFile != null ? load(processFile) : fromFlags(c.config().process());
            return ContainerExec.exec(c, new ExecOptions(process, pidFile, consoleSocket, detach, preserveFds,
                    ignorePaused));
        }
    }

    private static Process load(Path file) {
        try {
            return SpecLoader.loadProcess(file);
        } catch (SpecException e) {
            throw new ContainerException(e.getMessage());
        }
    }

    /** runc's exec without --process: the container's process with args and flags applied on top. */
    private Process fromFlags(Process base) {
        if (args.isEmpty()) {
            throw new ContainerException("exec: process.args: must not be empty (give a command or --process)");
        }
        List<String> mergedEnv = new ArrayList<>(base.env() == null ? List.of() : base.env());
        mergedEnv.addAll(env);
        User u = base.user() == null ? new User(0L, 0L, null, null, null) : base.user();
        if (user != null) {
            String[] parts = user.split(":", 2);
            u = new User(Long.parseLong(parts[0]), parts.length > 1 ? Long.parseLong(parts[1]) : u.gid(), u.umask(),
                    u.additionalGids(), null);
        }
        if (!additionalGids.isEmpty()) {
            u = new User(u.uid(), u.gid(), u.umask(), additionalGids, u.username());
        }
        LinuxCapabilities capabilities = base.capabilities();
        if (!caps.isEmpty()) {
            capabilities = new LinuxCapabilities(plus(capabilities == null ? null : capabilities.bounding()),
                    plus(capabilities == null ? null : capabilities.effective()),
                    capabilities == null ? null : capabilities.inheritable(),
                    plus(capabilities == null ? null : capabilities.permitted()),
                    plus(capabilities == null ? null : capabilities.ambient()));
        }
        return new Process(tty, base.consoleSize(), u, args, null, mergedEnv, cwd != null ? cwd : base.cwd(),
                capabilities, base.rlimits(), noNewPrivs || Boolean.TRUE.equals(base.noNewPrivileges()),
                base.apparmorProfile(), base.oomScoreAdj(), base.scheduler(), base.selinuxLabel(), base.ioPriority(),
                base.execCPUAffinity());
    }

    private List<String> plus(List<String> set) {
        List<String> out = new ArrayList<>(set == null ? List.of() : set);
        for (String cap : caps) {
            if (!out.contains(cap)) {
                out.add(cap);
            }
        }
        return out;
    }
}
