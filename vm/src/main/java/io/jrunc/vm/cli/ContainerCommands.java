package io.jrunc.vm.cli;

import io.jrunc.vm.state.PrettyJson;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.jrunc.agent.api.pb.v1.ContainerStatsResponse;
import io.jrunc.bindings.Signals;
import io.jrunc.vm.Containers;
import io.jrunc.vm.ExecEnvironment;
import io.jrunc.vm.Names;
import io.jrunc.vm.Sizes;
import io.jrunc.vm.VmException;
import io.jrunc.vm.VolumeFlag;
import io.jrunc.vm.config.ConfigFile;
import io.jrunc.vm.spec.LayerImage;
import io.jrunc.vm.spec.PodVolumeMount;
import io.jrunc.vm.state.ContainerRecord;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/** The container verbs, each a small class over {@link Containers}. */
final class ContainerCommands {
    private ContainerCommands() {
    }

    abstract static class Verb implements Callable<Integer> {
        @ParentCommand
        Main main;

        Containers containers() {
            return main.containers();
        }
    }

    /** A verb on one container, named by its one argument. */
    abstract static class Named extends Verb {
        @Parameters(paramLabel = "CONTAINER")
        String name;
    }

    /** The flags create and run share. */
    abstract static class Making extends Verb {
        @Option(names = "--pod", description = "the pod to run in (default: a new anonymous pod, removed with the container)")
        String pod;
        @Option(names = "--name", description = "the container's name (default: generated); unique across pods")
        String name;
        @Option(names = {"-m", "--memory"}, description = "memory limit, e.g. 64m (overrides the bundle's; default: the config file's [container] memory)")
        String memory;
        @Option(names = "--cpus", description = "CPU limit, e.g. 0.5 (overrides the bundle's; default: the config file's [container] cpus)")
        Double cpus;
        @Option(names = "--swap", description = "swap cap, swap alone, e.g. 64m: needs a memory limit; without --pod also the anonymous pod's swap area (default: the config file's [container] swap, else the whole area)")
        String swap;
        @Option(names = "--read-only", description = "a read-only root, whatever the bundle says (default: the bundle's root.readonly; a writable root is an overlay on a layer of its own)")
        boolean readOnly;
        @Option(names = "--layer-size", description = "the writable root's layer, e.g. 2g: writes beyond it get ENOSPC (default 1g)")
        String layerSize;
        @Option(names = "--rootfs-share", description = "share the bundle's rootfs directory into the VM by virtio-fs as the root, instead of an image made of it: the container's writes go to that directory (no layer; not with --layer-size)")
        boolean rootfsShare;
        @Option(names = "--network", description = "the anonymous pod's network: user (default), none, or ns:PATH (not with --pod)")
        String network;
        @Option(names = {"-p", "--publish"}, description = "[HOSTIP:]HOSTPORT:CTRPORT[/tcp|/udp] of the anonymous pod (repeatable; not with --pod)")
        List<String> publish = new ArrayList<>();
        @Option(names = {"-v", "--volume"}, paramLabel = "HOSTDIR|NAME:CTRPATH[:ro]", description = "share a host directory (an absolute path) with the container through virtio-fs, or mount the pod's volume NAME (pod create --volume); read-only with :ro (repeatable)")
        List<String> volumes = new ArrayList<>();
        @Option(names = {"-i", "--interactive"}, description = "keep stdin open")
        boolean interactive;
        @Option(names = {"-t", "--tty"}, description = "give the process a terminal")
        boolean tty;
        @Parameters(index = "0", paramLabel = "BUNDLE", description = "an OCI bundle: config.json and its rootfs")
        Path bundle;
        @Parameters(index = "1..*", paramLabel = "CMD", description = "replaces the bundle's process.args")
        List<String> command = new ArrayList<>();

        /**
         * After a container that made or took an anonymous pod: the warm pool's fill, started in the
         * background when the pool is short (nothing when the configuration keeps no pool).
         */
        void refillPool() throws VmException {
            if (pod == null) {
                main.pool().refill(main.globalArgs());
            }
        }

        Containers.Spec spec() throws VmException {
            ConfigFile.Defaults d = main.defaults();
            long mem = d.containerMemory(memory == null ? null : Sizes.parse(memory, "--memory"));
            long swapCap = d.containerSwap(swap == null ? null : Sizes.parse(swap, "--swap"));
            Containers.ConsoleSize size = tty ? Attach.consoleSize().map(s -> new Containers.ConsoleSize(s.getRows(), s.getColumns()))
                    .orElse(null) : null;
            long layer = layerSize == null ? LayerImage.DEFAULT_BYTES : Sizes.parse(layerSize, "--layer-size");
            if (rootfsShare && layerSize != null) {
                throw new VmException("--layer-size: a root shared by --rootfs-share has no layer (its writes go to the bundle's rootfs)");
            }
            // podman's rule: an absolute SOURCE is a host directory, one without '/' a volume of the pod
            List<VolumeFlag.HostDirectory> hostDirectories = new ArrayList<>();
            List<PodVolumeMount> podVolumes = new ArrayList<>();
            for (String v : volumes) {
                if (VolumeFlag.isHostDirectory(v)) {
                    hostDirectories.add(VolumeFlag.hostDirectory(v));
                } else {
                    VolumeFlag.refuseRelativePath(v);
                    podVolumes.add(PodVolumeMount.parse(v));
                }
            }
            return new Containers.Spec(pod, name, mem, d.containerCpus(cpus), bundle, command, tty, interactive, swapCap, size,
                    hostDirectories, new io.jrunc.vm.Pods.NetworkSpec(network, publish, List.of(), List.of()), readOnly, layer, podVolumes,
                    rootfsShare);
        }
    }

    @Command(name = "create", mixinStandardHelpOptions = true, description = "Create a container in a pod from an OCI bundle; prints its name.")
    static final class Create extends Making {
        @Override
        public Integer call() throws VmException {
            Main.Output.out.println(main.containersWithPool().create(spec()).name());
            refillPool();
            return 0;
        }
    }

    @Command(name = "run", mixinStandardHelpOptions = true, description = "Create, start and attach to a container; exits with its status.")
    static final class Run extends Making {
        @Option(names = "--rm", description = "remove the container (and its anonymous pod) when it exits")
        boolean rm;

        @Override
        public Integer call() throws Exception {
            Containers containers = main.containersWithPool();
            ContainerRecord c = containers.create(spec());
            int code;
            try {
                containers.startCreated(c.name(), interactive);
                code = Attach.container(containers, c, interactive, tty);
            } finally {
                if (rm) {
                    containers.remove(c.name(), true);
                }
            }
            refillPool();
            return code;
        }
    }

    @Command(name = "start", mixinStandardHelpOptions = true, description = "Start a created container.")
    static final class Start extends Named {

        @Override
        public Integer call() throws VmException {
            containers().start(name, false);
            Main.Output.out.println(name);
            return 0;
        }
    }

    @Command(name = "stop", mixinStandardHelpOptions = true, description = "Stop a container (SIGTERM, then SIGKILL after -t seconds); its name stays taken until rm.")
    static final class Stop extends Named {
        @Option(names = {"-t", "--time"}, defaultValue = "10", description = "seconds before SIGKILL (default ${DEFAULT-VALUE})")
        int time;

        @Override
        public Integer call() throws VmException {
            containers().stop(name, PodCommand.grace(time));
            Main.Output.out.println(name);
            return 0;
        }
    }

    @Command(name = "kill", mixinStandardHelpOptions = true, description = "Send a signal to a container's process.")
    static final class Kill extends Named {
        @Option(names = {"-s", "--signal"}, defaultValue = "KILL", description = "name or number (default ${DEFAULT-VALUE})")
        String signal;

        @Override
        public Integer call() throws VmException {
            containers().kill(name, signal(signal));
            Main.Output.out.println(name);
            return 0;
        }
    }

    @Command(name = "pause", mixinStandardHelpOptions = true, description = "Freeze every process of a running container (its cgroup's freezer in the guest).")
    static final class Pause extends Named {

        @Override
        public Integer call() throws VmException {
            containers().pause(name, true);
            Main.Output.out.println(name);
            return 0;
        }
    }

    @Command(name = "unpause", mixinStandardHelpOptions = true, description = "Thaw a paused container.")
    static final class Unpause extends Named {

        @Override
        public Integer call() throws VmException {
            containers().pause(name, false);
            Main.Output.out.println(name);
            return 0;
        }
    }

    @Command(name = "rm", mixinStandardHelpOptions = true, description = "Remove a container (-f: even a running one); its disk is unplugged, its logs go.")
    static final class Rm extends Named {
        @Option(names = {"-f", "--force"})
        boolean force;

        @Override
        public Integer call() throws VmException {
            containers().remove(name, force);
            Main.Output.out.println(name);
            return 0;
        }
    }

    @Command(name = "ls", aliases = {"ps", "list"}, mixinStandardHelpOptions = true, description = "List containers of every pod.")
    static final class Ls extends Verb {
        @Option(names = "--format", description = "json, or a table when absent")
        String format;

        @Override
        public Integer call() throws Exception {
            if (format != null && !format.equals("json") && !format.equals("table")) {
                throw new VmException("invalid --format \"" + format + "\": expected json or table");
            }
            List<ObjectNode> all = containers().list();
            if ("json".equals(format)) {
                ArrayNode array = JsonNodeFactory.instance.arrayNode();
                all.forEach(array::add);
                Main.Output.out.println(PrettyJson.of(array));
                return 0;
            }
            List<String[]> rows = new ArrayList<>();
            for (ObjectNode c : all) {
                rows.add(new String[] {c.path("name").asText(), c.path("pod").asText(), c.path("state").asText(),
                        String.join(" ", java.util.stream.StreamSupport.stream(c.path("args").spliterator(), false).map(a -> a.asText()).toList()), c.path("bundle").asText()});
            }
            Table.print(Main.Output.out, new String[] {"NAME", "POD", "STATUS", "COMMAND", "BUNDLE"}, rows);
            return 0;
        }
    }

    @Command(name = "inspect", mixinStandardHelpOptions = true, description = "Show a container as JSON.")
    static final class Inspect extends Named {

        @Override
        public Integer call() throws Exception {
            Containers c = containers();
            Main.Output.out.println(PrettyJson.of(c.inspect(c.require(name))));
            return 0;
        }
    }

    @Command(name = "logs", mixinStandardHelpOptions = true, description = "Print a container's output (kept across pod stop, removed with the container).")
    static final class Logs extends Named {

        @Override
        public Integer call() throws Exception {
            Containers containers = containers();
            ContainerRecord c = containers.require(name);
            Path out = containers.logFile(c, "stdout");
            Path err = containers.logFile(c, "stderr");
            if (Files.exists(out)) {
                Main.Output.out.write(Files.readAllBytes(out));
                Main.Output.out.flush();
            }
            if (Files.exists(err)) {
                Main.Output.err.write(Files.readAllBytes(err));
                Main.Output.err.flush();
            }
            return 0;
        }
    }

    @Command(name = "stats", mixinStandardHelpOptions = true, description = "A container's cgroup figures, read in the guest, as JSON.")
    static final class Stats extends Named {

        @Override
        public Integer call() throws Exception {
            ContainerStatsResponse s = containers().stats(name);
            ObjectNode o = JsonNodeFactory.instance.objectNode();
            ObjectNode mem = o.putObject("memory").put("current", s.getMemory().getCurrent());
            if (s.getMemory().hasLimit()) {
                mem.put("max", s.getMemory().getLimit());
            }
            if (s.getMemory().hasSwapCurrent()) {
                mem.put("swapCurrent", s.getMemory().getSwapCurrent());
            }
            if (s.getMemory().hasSwapLimit()) {
                mem.put("swapMax", s.getMemory().getSwapLimit());
            }
            var ev = s.getMemory().getEvents();
            mem.putObject("events").put("low", ev.getLow()).put("high", ev.getHigh()).put("max", ev.getMax())
                    .put("oom", ev.getOom()).put("oomKill", ev.getOomKill());
            o.putObject("cpu").put("usageUsec", s.getCpu().getUsageUsec()).put("userUsec", s.getCpu().getUserUsec())
                    .put("systemUsec", s.getCpu().getSystemUsec()).put("throttledUsec", s.getCpu().getThrottledUsec());
            o.putObject("pids").put("current", s.getPids().getCurrent());
            Main.Output.out.println(PrettyJson.of(o));
            return 0;
        }
    }

    @Command(name = "exec", mixinStandardHelpOptions = true, description = "Run a command in a running container; exits with its status.")
    static final class Exec extends Verb {
        @Option(names = {"-i", "--interactive"}, description = "pass stdin to the command")
        boolean interactive;
        @Option(names = {"-t", "--tty"}, description = "give the command a terminal")
        boolean tty;
        @Option(names = {"-e", "--env"}, description = "NAME=value, added to the container's environment (repeatable); NAME alone takes this shell's value")
        List<String> env = new ArrayList<>();
        @Option(names = {"-w", "--workdir"}, description = "the working directory in the container, which must exist (default: the container's)")
        String workdir;
        @Parameters(index = "0", paramLabel = "CONTAINER")
        String name;
        @Parameters(index = "1..*", paramLabel = "CMD", arity = "1..*")
        List<String> command;

        @Override
        public Integer call() throws Exception {
            Containers containers = containers();
            ContainerRecord c = containers.require(name);
            List<String> environment = ExecEnvironment.of(containers.pods().root().containerDir(c.pod(), c.name())
                    .resolve("config.json"), env, System.getenv());
            return Attach.exec(containers, c, Names.random("exec-"), command, environment, workdir, interactive, tty);
        }
    }

    /** kill -s: a signal's name or number (the kernel's names and numbers), or jrunc-vm's error naming the flag. */
    static int signal(String s) throws VmException {
        if (Signals.parse(s) instanceof Signals.Parsed.Signal signal) {
            return signal.number();
        }
        throw new VmException("invalid --signal \"" + s + "\": not a signal name or number");
    }
}
