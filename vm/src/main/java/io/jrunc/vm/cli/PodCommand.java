package io.jrunc.vm.cli;

import io.jrunc.vm.state.PrettyJson;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.jrunc.vm.Pods;
import io.jrunc.vm.Sizes;
import io.jrunc.vm.VmException;
import io.jrunc.vm.state.PodRecord;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/** `jrunc-vm pod ...`: one small class per verb. */
@Command(name = "pod", mixinStandardHelpOptions = true, description = "Manage pods (a pod is one VM).")
final class PodCommand implements Runnable {
    /** The pod commands, in the order `pod --help` lists them; registered as {@link Main#COMMANDS} are. */
    static final List<Class<?>> COMMANDS = List.of(PodCommand.Create.class, PodCommand.Start.class, PodCommand.Stop.class,
            PodCommand.Rm.class, PodCommand.Inspect.class, PodCommand.Ls.class, PodCommand.Prune.class,
            PodCommand.Pool.class, PodCommand.Template.class);

    @ParentCommand
    Main main;
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(), "a pod command is required (see jrunc-vm pod --help)");
    }

    abstract static class Verb implements Callable<Integer> {
        @ParentCommand
        PodCommand pod;

        Pods pods() {
            return pod.main.pods();
        }
    }

    /** A verb on one pod, named by its one positional. */
    abstract static class Named extends Verb {
        @Parameters(paramLabel = "NAME")
        String name;
    }

    @Command(name = "create", mixinStandardHelpOptions = true, description = "Create a pod; prints its name. Its VM starts with `pod start` or its first container.")
    static final class Create extends Verb {
        @Option(names = "--name", description = "the pod's name (default: generated)")
        String name;
        @Option(names = "--cpus", description = "the containers' CPUs (default 1); the VM gets one more for its agent under KVM while the host has more")
        int cpus;
        @Option(names = "--memory", description = "the pod's memory, e.g. 512m (default 512m); the VM gets this plus the agent's own")
        String memory;
        @Option(names = "--hostname", description = "the pod's hostname (default: its name)")
        String hostname;
        @Option(names = "--dns", description = "a nameserver for the pod's resolv.conf (repeatable; default: the network's resolver)")
        List<String> dns = new ArrayList<>();
        @Option(names = "--add-host", description = "NAME:IP for the pod's /etc/hosts (repeatable)")
        List<String> addHosts = new ArrayList<>();
        @Option(names = "--sysctl", description = "KEY=VALUE kernel parameter of the pod's VM (repeatable)")
        List<String> sysctls = new ArrayList<>();
        @Option(names = "--swap", description = "the pod's swap area, shared by its containers, e.g. 1g (default: the config file's [pod] swap, else none)")
        String swap;
        @Option(names = "--volume", paramLabel = "NAME[:SIZE]", description = "a named volume kept with the pod, e.g. data:2g (default size 1g; repeatable); its containers mount it with create --volume NAME:CTRPATH")
        List<String> volumes = new ArrayList<>();
        @Option(names = "--network", description = "user (default: qemu's user-mode network, NAT through the host), none (lo alone), or ns:PATH (join the network namespace at PATH through a tap)")
        String network;
        @Option(names = {"-p", "--publish"}, description = "[HOSTIP:]HOSTPORT:CTRPORT[/tcp|/udp]: a host port that reaches the pod's port (repeatable; --network user)")
        List<String> publish = new ArrayList<>();
        @Option(names = "--dns-search", description = "a search domain for the pod's resolv.conf (repeatable)")
        List<String> dnsSearch = new ArrayList<>();
        @Option(names = "--dns-option", description = "an option for the pod's resolv.conf, e.g. ndots:2 (repeatable)")
        List<String> dnsOptions = new ArrayList<>();
        @Option(names = "--kernel", description = "the VM's kernel (default: the installed image's)")
        Path kernel;
        @Option(names = "--initrd", description = "the VM's initramfs (default: the installed image's)")
        Path initrd;

        @Override
        public Integer call() throws VmException {
            long mem = memory == null ? 0 : Sizes.parse(memory, "--memory");
            long swapBytes = pod.main.defaults().podSwap(swap == null ? null : Sizes.parse(swap, "--swap"));
            PodRecord p = pods().create(new Pods.Spec(name, cpus, mem, hostname, dns, addHosts, sysctls, kernel, initrd,
                    swapBytes, new Pods.NetworkSpec(network, publish, dnsSearch, dnsOptions), volumes), false);
            Main.Output.out.println(p.name());
            return 0;
        }
    }

    @Command(name = "start", mixinStandardHelpOptions = true,
            description = "Boot the pod's VM (and its monitor) and start the containers it kept from an earlier boot.")
    static final class Start extends Named {
        @Override
        public Integer call() throws VmException {
            pods().startWithContainers(name);
            Main.Output.out.println(name);
            return 0;
        }
    }

    @Command(name = "stop", mixinStandardHelpOptions = true, description = "Power the pod's VM off (containers get SIGTERM, then SIGKILL after the grace time; -t 0: the VM ends at once). Its state stays.")
    static final class Stop extends Named {
        @Option(names = {"-t", "--time"}, description = "seconds between SIGTERM and SIGKILL (default ${DEFAULT-VALUE}); 0 ends the VM at once", defaultValue = "10")
        int time;

        @Override
        public Integer call() throws VmException {
            pods().stop(name, grace(time));
            Main.Output.out.println(name);
            return 0;
        }
    }

    @Command(name = "rm", mixinStandardHelpOptions = true,
            description = "Remove a pod; -f takes its containers and ends its VM at once, or after -t seconds of grace for them.")
    static final class Rm extends Named {
        @Option(names = {"-f", "--force"}, description = "remove its containers too, and end its VM without waiting (unless -t)")
        boolean force;
        @Option(names = {"-t", "--time"}, description = "seconds between SIGTERM and SIGKILL for its containers (default: 0 with -f, else 10)")
        Integer time;

        @Override
        public Integer call() throws VmException {
            pods().remove(name, force, grace(time != null ? time : force ? 0 : 10));
            Main.Output.out.println(name);
            return 0;
        }
    }

    static Duration grace(int seconds) throws VmException {
        if (seconds < 0) {
            throw new VmException("invalid --time " + seconds + ": must be 0 or more seconds");
        }
        return Duration.ofSeconds(seconds);
    }

    @Command(name = "inspect", mixinStandardHelpOptions = true, description = "Show a pod as JSON, with the image digest it booted.")
    static final class Inspect extends Named {
        @Override
        public Integer call() throws Exception {
            Main.Output.out.println(PrettyJson.of(pods().inspect(name)));
            return 0;
        }
    }

    @Command(name = "ls", aliases = "list", mixinStandardHelpOptions = true, description = "List pods.")
    static final class Ls extends Verb {
        @Option(names = "--format", description = "json, or a table when absent")
        String format;

        @Override
        public Integer call() throws Exception {
            if (format != null && !format.equals("json") && !format.equals("table")) {
                throw new VmException("invalid --format \"" + format + "\": expected json or table");
            }
            Pods pods = pods();
            ArrayNode all = JsonNodeFactory.instance.arrayNode();
            List<String[]> rows = new ArrayList<>();
            for (PodRecord p : pods.root().pods()) {
                String state = pods.state(p);
                int members = pods.root().containers(p.name()).size();
                PodRecord.Config c = p.config();
                all.addObject().put("name", p.name()).put("state", state).put("anonymous", p.anonymous()).put("pooled", p.pooled())
                        .put("restored", p.vm().restored())
                        .put("cpus", c.cpus()).put("memory", Sizes.format(c.memoryBytes())).put("containers", members);
                // the table marks the warm pool's pods, which no container holds yet (the JSON has "pooled")
                rows.add(new String[] {p.name(), p.pooled() ? state + " (pooled)" : state, Integer.toString(c.cpus()),
                        Sizes.format(c.memoryBytes()), Integer.toString(members)});
            }
            if ("json".equals(format)) {
                Main.Output.out.println(PrettyJson.of(all));
            } else {
                Table.print(Main.Output.out, new String[] {"NAME", "STATUS", "CPUS", "MEMORY", "CONTAINERS"}, rows);
            }
            return 0;
        }
    }

    @Command(name = "pool", mixinStandardHelpOptions = true, description = "Boot the warm pool's pods (the configuration file's"
            + " [pool] size: anonymous pods that run and create without --pod take) and wait until they serve; prints their names.")
    static final class Pool extends Verb {
        @Option(names = "--drain", description = "remove the pool's pods instead (a pod a container took is that container's)")
        boolean drain;
        /** The fill a command starts after it made or took an anonymous pod: detached, not waiting for the boots. */
        @Option(names = "--background", hidden = true)
        boolean background;

        @Override
        public Integer call() throws Exception {
            io.jrunc.vm.PodPool pool = pod.main.pool();
            if (drain) {
                pool.drain().forEach(Main.Output.out::println);
                return 0;
            }
            if (background) {
                // out of the caller's session, as a monitor is: a ^C or SIGHUP to the command's group is not the fill's
                io.jrunc.vm.monitor.Session.lead();
            } else if (!pool.enabled()) {
                throw new VmException("no pool to fill: the configuration file sets no [pool] size");
            }
            pool.fill(!background).forEach(Main.Output.out::println);
            return 0;
        }
    }

    @Command(name = "template", mixinStandardHelpOptions = true, description = "Make the pod template: a pod's VM saved at"
            + " ready, from which anonymous pods that share no host directory are then restored rather than booted; prints its"
            + " directory. The pods restored from one template share its memory's first state (docs/vm.md).")
    static final class Template extends Verb {
        @Option(names = "--rm", description = "remove the template instead (pods restored from it run on)")
        boolean rm;

        @Override
        public Integer call() throws Exception {
            io.jrunc.vm.state.StateRoot root = pods().root();
            try (AutoCloseable ignored = root.poolLock()) {
                if (rm) {
                    io.jrunc.vm.monitor.PodTemplate.remove(root);
                } else {
                    Main.Output.out.println(io.jrunc.vm.monitor.PodTemplate.make(root, pod.main.pool().template("template")));
                }
            }
            return 0;
        }
    }

    @Command(name = "prune", mixinStandardHelpOptions = true, description = "Remove pods that do not run: anonymous ones only, unless --all.")
    static final class Prune extends Verb {
        @Option(names = {"-a", "--all"}, description = "named pods too")
        boolean all;

        @Override
        public Integer call() throws VmException {
            pods().prune(all).forEach(Main.Output.out::println);
            return 0;
        }
    }
}
