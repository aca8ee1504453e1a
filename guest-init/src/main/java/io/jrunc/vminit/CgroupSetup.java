package io.jrunc.vminit;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The guest's cgroup v2 tree: every available controller enabled at the root and in
 * {@value #CONTAINERS}, the containers' parent; the agent alone in {@value #AGENT}, with memory.low so
 * container pressure does not reclaim it, and oom_score_adj -999 (killing PID 1 panics the guest).
 */
final class CgroupSetup {
    private CgroupSetup() {}

    static final Path ROOT = Path.of("/sys/fs/cgroup");
    static final String AGENT = "agent";
    static final String CONTAINERS = "containers";
    /** What the agent's memory is protected up to: its heap limit and the JVM's own memory. */
    static final long AGENT_MEMORY_LOW = 96L << 20;

    static String setUp() throws IOException {
        String controllers = Files.readString(ROOT.resolve("cgroup.controllers")).trim();
        enable(ROOT, controllers);
        Path agent = Files.createDirectories(ROOT.resolve(AGENT));
        Files.writeString(agent.resolve("cgroup.procs"), Long.toString(ProcessHandle.current().pid()));
        if (Files.exists(agent.resolve("memory.low"))) {
            Files.writeString(agent.resolve("memory.low"), Long.toString(AGENT_MEMORY_LOW));
        }
        Path containers = Files.createDirectories(ROOT.resolve(CONTAINERS));
        enable(containers, Files.readString(containers.resolve("cgroup.controllers")).trim());
        Files.writeString(Path.of("/proc/self/oom_score_adj"), "-999");
        return controllers;
    }

    /**
     * Gives the containers' parent the VM's first {@code n} CPUs (cpuset.cpus), leaving the others to the
     * agent alone: the host boots a pod with a CPU more than its containers get, so that the agent's JIT,
     * class loading and module loading run beside the containers instead of taking their time. Every CPU
     * (nothing written) when {@code n} is 0 or not fewer than the VM's.
     *
     * @return the containers' cpuset.cpus as written and the VM's online CPUs, or null when the
     *         containers have every CPU
     */
    static ContainerCpus limitContainerCpus(int n) throws IOException {
        String online = Files.readString(ONLINE_CPUS).trim();
        if (n <= 0 || n >= cpuCount(online)) {
            return null;
        }
        String cpus = n == 1 ? "0" : "0-" + (n - 1);
        Files.writeString(ROOT.resolve(CONTAINERS).resolve("cpuset.cpus"), cpus);
        return new ContainerCpus(cpus, online);
    }

    /** The containers' CPUs and the VM's, as the kernel writes CPU lists ("0", "0-1"). */
    record ContainerCpus(String containers, String online) {}

    private static final Path ONLINE_CPUS = Path.of("/sys/devices/system/cpu/online");

    /** How many CPUs a kernel CPU list names ("0-3,5": 5). */
    static int cpuCount(String list) {
        int count = 0;
        for (String part : list.split(",")) {
            if (part.isBlank()) {
                continue;
            }
            int dash = part.indexOf('-');
            count += dash < 0 ? 1 : Integer.parseInt(part.substring(dash + 1).trim()) - Integer.parseInt(part.substring(0, dash).trim()) + 1;
        }
        return count;
    }

    /** The cgroupsPath the agent gives a container: its own directory under the containers' parent. */
    static String pathOf(String id) {
        return "/" + CONTAINERS + "/" + id;
    }

    private static void enable(Path dir, String controllers) throws IOException {
        if (controllers.isEmpty()) {
            return;
        }
        StringBuilder line = new StringBuilder();
        for (String c : controllers.split(" ")) {
            line.append(line.isEmpty() ? "" : " ").append('+').append(c);
        }
        Files.writeString(dir.resolve("cgroup.subtree_control"), line.toString());
    }
}
