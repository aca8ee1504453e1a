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

    private static final List<Flag> FLAGS = List.of(
            Flag.string("console-socket",
                    "path to an AF_UNIX socket which will receive a file descriptor referencing the master end of the console's pseudoterminal"),
            Flag.string("pidfd-socket", "path to an AF_UNIX socket which will receive a pidfd (not supported)"),
            Flag.string("cwd", "current working directory in the container"),
            Flag.list("env, e", "set environment variables"),
            Flag.bool("tty, t", "allocate a pseudo-TTY"),
            Flag.string("user, u", "UID (format: <uid>[:<gid>])"),
            Flag.list("additional-gids, g", "additional gids"),
            Flag.string("process, p", "path to the process.json"),
            Flag.bool("detach, d", "detach from the container's process"),
            Flag.string("pid-file", "specify the file to write the process id to"),
            Flag.string("process-label", "set the asm process label for the process commonly used with selinux"),
            Flag.string("apparmor", "set the apparmor profile for the process"),
            Flag.bool("no-new-privs", "set the no new privileges value for the process"),
            Flag.list("cap, c", "add a capability to the bounding set for the process"),
            Flag.unsigned("preserve-fds", "pass N additional file descriptors to the container (default: 0)"),
            Flag.list("cgroup", "run the process in an (existing) sub-cgroup(s)"),
            Flag.bool("ignore-paused", "allow exec in a paused container"));

    @Override
    boolean processArguments() {
        return true;
    }

    @Override
    String name() {
        return "exec";
    }

    @Override
    String description() {
        return "execute new process inside the container";
    }

    @Override
    String argsUsage() {
        return "<container-id> <command> [command options]  || -p process.json <container-id>";
    }

    @Override
    List<Flag> flags() {
        return FLAGS;
    }

    @Override
    void read(Arguments parsed) {
        consoleSocket = Cli.path(parsed.string("console-socket", null));
        pidfdSocket = Cli.path(parsed.string("pidfd-socket", null));
        cwd = parsed.string("cwd", null);
        env = parsed.list("env");
        tty = parsed.flag("tty");
        user = parsed.string("user", null);
        additionalGids = new ArrayList<>();
        for (String gid : parsed.list("additional-gids")) {
            try {
                additionalGids.add(Long.parseLong(gid));
            } catch (NumberFormatException e) {
                throw new Arguments.UsageException("invalid value \"" + gid + "\" for flag -additional-gids: parse error");
            }
        }
        processFile = Cli.path(parsed.string("process", null));
        detach = parsed.flag("detach");
        pidFile = Cli.path(parsed.string("pid-file", null));
        processLabel = parsed.string("process-label", null);
        apparmor = parsed.string("apparmor", null);
        noNewPrivs = parsed.flag("no-new-privs");
        caps = parsed.list("cap");
        preserveFds = parsed.integer("preserve-fds", 0);
        cgroup = parsed.list("cgroup");
        ignorePaused = parsed.flag("ignore-paused");
        id = parsed.positional(0);
        args = parsed.positionalFrom(1);
    }

    @Override
    public Integer call() throws Exception {
        if (pidfdSocket != null) {
            throw new ContainerException("--pidfd-socket is not supported by jrunc yet");
        }
        Main.failurePrefix = "jrunc exec failed: ";
        if (processLabel != null || apparmor != null) {
            throw new ContainerException("--process-label and --apparmor are not supported by jrunc yet");
        }
        if (!cgroup.isEmpty()) {
            throw new ContainerException("--cgroup: sub-cgroups for exec are not supported by jrunc yet");
        }
        if (UserNamespaceStage.needed()) {
            int pid;
            try (Container c = Container.load(main.root, id)) {
                pid = c.state().pid();
            }
            return UserNamespaceStage.exec(pid, !detach);
        }
        try (Container c = Container.load(main.root, id)) {
            if (UserNamespaceStage.isStage()) {
                UserNamespaceStage.verifyExec(c.state().pid());
            }
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
        return base.toBuilder().terminal(tty).user(u).args(args).commandLine(null).env(mergedEnv)
                .cwd(cwd != null ? cwd : base.cwd()).capabilities(capabilities)
                .noNewPrivileges(noNewPrivs || Boolean.TRUE.equals(base.noNewPrivileges())).build();
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
