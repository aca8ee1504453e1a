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
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParseResult;

final class ExecCommand extends Subcommand {
    Path consoleSocket;
    Path pidfdSocket;
    String cwd;
    List<String> env = new ArrayList<>();
    boolean tty;
    String user;
    List<Long> additionalGids = new ArrayList<>();
    Path processFile;
    boolean detach;
    Path pidFile;
    String processLabel;
    String apparmor;
    boolean noNewPrivs;
    List<String> caps = new ArrayList<>();
    int preserveFds;
    List<String> cgroup = new ArrayList<>();
    boolean ignorePaused;

    String id;
    List<String> args = new ArrayList<>();

    @Override
    CommandSpec spec() {
        return Cli.command(this, "exec", "execute new process inside the container",
                Cli.option("consoleSocket", Path.class, null, "--console-socket"),
                Cli.option("pidfdSocket", Path.class, null, "--pidfd-socket"),
                Cli.option("cwd", String.class, null, "--cwd"),
                Cli.list("env", String.class, "-e", "--env"),
                Cli.flag("tty", null, "-t", "--tty"),
                Cli.option("user", String.class, null, "-u", "--user"),
                Cli.list("additionalGids", Long.class, "-g", "--additional-gids"),
                Cli.option("processFile", Path.class, null, "-p", "--process"),
                Cli.flag("detach", null, "-d", "--detach"),
                Cli.option("pidFile", Path.class, null, "--pid-file"),
                Cli.option("processLabel", String.class, null, "--process-label"),
                Cli.option("apparmor", String.class, null, "--apparmor"),
                Cli.flag("noNewPrivs", null, "--no-new-privs"),
                Cli.list("caps", String.class, "-c", "--cap"),
                Cli.option("preserveFds", int.class, null, "--preserve-fds"),
                Cli.list("cgroup", String.class, "--cgroup"),
                Cli.flag("ignorePaused", null, "--ignore-paused"),
                Cli.id(),
                Cli.rest("args"));
    }

    @Override
    void read(ParseResult parsed) {
        consoleSocket = parsed.matchedOptionValue("--console-socket", consoleSocket);
        pidfdSocket = parsed.matchedOptionValue("--pidfd-socket", pidfdSocket);
        cwd = parsed.matchedOptionValue("--cwd", cwd);
        env = parsed.matchedOptionValue("--env", env);
        tty = parsed.matchedOptionValue("--tty", tty);
        user = parsed.matchedOptionValue("--user", user);
        additionalGids = parsed.matchedOptionValue("--additional-gids", additionalGids);
        processFile = parsed.matchedOptionValue("--process", processFile);
        detach = parsed.matchedOptionValue("--detach", detach);
        pidFile = parsed.matchedOptionValue("--pid-file", pidFile);
        processLabel = parsed.matchedOptionValue("--process-label", processLabel);
        apparmor = parsed.matchedOptionValue("--apparmor", apparmor);
        noNewPrivs = parsed.matchedOptionValue("--no-new-privs", noNewPrivs);
        caps = parsed.matchedOptionValue("--cap", caps);
        preserveFds = parsed.matchedOptionValue("--preserve-fds", preserveFds);
        cgroup = parsed.matchedOptionValue("--cgroup", cgroup);
        ignorePaused = parsed.matchedOptionValue("--ignore-paused", ignorePaused);
        id = parsed.matchedPositionalValue(0, id);
        args = parsed.matchedPositionalValue(1, args);
    }

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
