package io.jrunc.cli;

import java.util.List;
import io.jrunc.runtime.Container;
import io.jrunc.runtime.ContainerException;
import io.jrunc.spec.LinuxBlockIO;
import io.jrunc.spec.LinuxCPU;
import io.jrunc.spec.LinuxMemory;
import io.jrunc.spec.LinuxPids;
import io.jrunc.spec.LinuxResources;
import io.jrunc.spec.SpecException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

final class UpdateCommand extends Subcommand {
    String resources;

    Integer blkioWeight;
    String cpuPeriod;
    String cpuQuota;
    String cpuBurst;
    String cpuShare;
    String cpuRtPeriod;
    String cpuRtRuntime;
    String cpusetCpus;
    String cpusetMems;
    String cpuIdle;
    String memory;
    String memoryReservation;
    String memorySwap;
    String kernelMemory;
    String kernelMemoryTcp;
    Long pidsLimit;
    String l3CacheSchema;
    String memBwSchema;

    String id;

    private static final List<Flag> FLAGS = List.of(
            Flag.string("resources, r",
                    "path to the file containing the resources to update or '-' to read from the standard input"),
            Flag.string("blkio-weight", "specifies per cgroup weight, range is from 10 to 1000"),
            Flag.string("cpu-period", "CPU CFS period to be used for hardcapping (in usecs). 0 to use system default"),
            Flag.string("cpu-quota", "CPU CFS hardcap limit (in usecs). Allowed cpu time in a given period"),
            Flag.string("cpu-burst", "CPU CFS hardcap burst limit (in usecs). Allowed accumulated cpu time additionally for burst a given period"),
            Flag.string("cpu-share", "CPU shares (relative weight vs. other containers)"),
            Flag.string("cpu-rt-period", "CPU realtime period to be used for hardcapping (in usecs). 0 to use system default"),
            Flag.string("cpu-rt-runtime", "CPU realtime hardcap limit (in usecs). Allowed cpu time in a given period"),
            Flag.string("cpuset-cpus", "CPU(s) to use"),
            Flag.string("cpuset-mems", "Memory node(s) to use"),
            Flag.string("cpu-idle", "set cgroup SCHED_IDLE or not, 0: default behavior, 1: SCHED_IDLE"),
            Flag.string("memory", "Memory limit (in bytes)"),
            Flag.string("memory-reservation", "Memory reservation or soft_limit (in bytes)"),
            Flag.string("memory-swap", "Total memory usage (memory + swap); set '-1' to enable unlimited swap"),
            Flag.string("kernel-memory", "(obsoleted; do not use)").hide(),
            Flag.string("kernel-memory-tcp", "(obsoleted; do not use)").hide(),
            Flag.string("pids-limit", "Maximum number of pids allowed in the container"),
            Flag.string("l3-cache-schema", "The string of Intel RDT/CAT L3 cache schema"),
            Flag.string("mem-bw-schema", "The string of Intel RDT/MBA memory bandwidth schema"));

    @Override
    String name() {
        return "update";
    }

    @Override
    String description() {
        return "update container resource constraints";
    }

    @Override
    List<Flag> flags() {
        return FLAGS;
    }

    @Override
    void read(Arguments args) {
        resources = args.string("resources", null);
        String weight = args.string("blkio-weight", null);
        blkioWeight = weight == null ? null : number("--blkio-weight", weight).intValue();
        cpuPeriod = args.string("cpu-period", null);
        cpuQuota = args.string("cpu-quota", null);
        cpuBurst = args.string("cpu-burst", null);
        cpuShare = args.string("cpu-share", null);
        cpuRtPeriod = args.string("cpu-rt-period", null);
        cpuRtRuntime = args.string("cpu-rt-runtime", null);
        cpusetCpus = args.string("cpuset-cpus", null);
        cpusetMems = args.string("cpuset-mems", null);
        cpuIdle = args.string("cpu-idle", null);
        memory = args.string("memory", null);
        memoryReservation = args.string("memory-reservation", null);
        memorySwap = args.string("memory-swap", null);
        kernelMemory = args.string("kernel-memory", null);
        kernelMemoryTcp = args.string("kernel-memory-tcp", null);
        String pids = args.string("pids-limit", null);
        pidsLimit = pids == null ? null : number("--pids-limit", pids);
        l3CacheSchema = args.string("l3-cache-schema", null);
        memBwSchema = args.string("mem-bw-schema", null);
        id = args.positional(0);
    }

    @Override
    public Integer call() throws IOException {
        if (l3CacheSchema != null || memBwSchema != null) {
            throw new ContainerException("Intel RDT is not supported by jrunc");
        }
        LinuxResources changes = resources != null ? readResources() : fromFlags();
        try (Container c = Container.load(main.root, id)) {
            c.update(changes);
        }
        return 0;
    }

    private LinuxResources readResources() throws IOException {
        try (java.io.InputStream in = resources.equals("-") ? System.in : Files.newInputStream(Path.of(resources))) {
            byte[] json = io.jrunc.spec.SpecLoader.readLimited(in, resources.equals("-") ? "the standard input" : resources);
            return io.jrunc.spec.SpecReader.readResources(json);
        } catch (SpecException e) {
            throw new ContainerException("--resources: " + e.getMessage());
        }
    }

    private LinuxResources fromFlags() {
        LinuxMemory mem = null;
        if (memory != null || memoryReservation != null || memorySwap != null || kernelMemory != null
                || kernelMemoryTcp != null) {
            mem = new LinuxMemory(bytes("--memory", memory), bytes("--memory-reservation", memoryReservation),
                    bytes("--memory-swap", memorySwap), bytes("--kernel-memory", kernelMemory),
                    bytes("--kernel-memory-tcp", kernelMemoryTcp), null, null, null, null);
        }
        LinuxCPU cpu = null;
        if (cpuPeriod != null || cpuQuota != null || cpuBurst != null || cpuShare != null || cpuRtPeriod != null
                || cpuRtRuntime != null || cpusetCpus != null || cpusetMems != null || cpuIdle != null) {
            cpu = new LinuxCPU(number("--cpu-share", cpuShare), number("--cpu-quota", cpuQuota),
                    number("--cpu-burst", cpuBurst), number("--cpu-period", cpuPeriod),
                    number("--cpu-rt-runtime", cpuRtRuntime), number("--cpu-rt-period", cpuRtPeriod), cpusetCpus,
                    cpusetMems, number("--cpu-idle", cpuIdle));
        }
        LinuxBlockIO blkio = blkioWeight == null ? null : new LinuxBlockIO(blkioWeight, null, null, null, null, null, null);
        LinuxPids pids = pidsLimit == null ? null : new LinuxPids(pidsLimit);
        return new LinuxResources(null, mem, cpu, pids, blkio, null, null, null, null);
    }

    private static Long number(String flag, String value) {
        if (value == null || value.isEmpty()) {
            return null;
        }
        try {
            return Long.parseLong(value);
        } catch (NumberFormatException e) {
            throw new ContainerException("invalid value for " + flag + ": " + value);
        }
    }

    /** docker/go-units RAMInBytes: a number with an optional b, k, m, g, t or p suffix (base 1024); -1 is unlimited. */
    static Long bytes(String flag, String value) {
        if (value == null || value.isEmpty()) {
            return null;
        }
        if (value.equals("-1")) {
            return -1L;
        }
        String v = value.trim().toLowerCase(Locale.ROOT);
        if (v.endsWith("ib") || (v.endsWith("b") && v.length() > 1 && !Character.isDigit(v.charAt(v.length() - 2)))) {
            v = v.substring(0, v.length() - (v.endsWith("ib") ? 2 : 1));
        } else if (v.endsWith("b")) {
            v = v.substring(0, v.length() - 1);
        }
        long unit = 1;
        char last = v.isEmpty() ? ' ' : v.charAt(v.length() - 1);
        switch (last) {
            case 'k' -> unit = 1L << 10;
            case 'm' -> unit = 1L << 20;
            case 'g' -> unit = 1L << 30;
            case 't' -> unit = 1L << 40;
            case 'p' -> unit = 1L << 50;
            default -> { }
        }
        if (unit != 1) {
            v = v.substring(0, v.length() - 1);
        }
        try {
            return (long) (Double.parseDouble(v) * unit);
        } catch (NumberFormatException e) {
            throw new ContainerException("invalid value for " + flag + ": " + value);
        }
    }
}
