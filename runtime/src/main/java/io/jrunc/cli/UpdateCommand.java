package io.jrunc.cli;

import io.jrunc.runtime.Container;
import io.jrunc.runtime.ContainerException;
import io.jrunc.spec.Json;
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
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParseResult;

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

    @Override
    CommandSpec spec() {
        return Cli.command(this, "update", "update container resource constraints",
                Cli.option("resources", String.class,
                        "path to a file containing the resources to update or '-' to read from the standard input",
                        "-r", "--resources"),
                Cli.option("blkioWeight", Integer.class, null, "--blkio-weight"),
                Cli.option("cpuPeriod", String.class, null, "--cpu-period"),
                Cli.option("cpuQuota", String.class, null, "--cpu-quota"),
                Cli.option("cpuBurst", String.class, null, "--cpu-burst"),
                Cli.option("cpuShare", String.class, null, "--cpu-share"),
                Cli.option("cpuRtPeriod", String.class, null, "--cpu-rt-period"),
                Cli.option("cpuRtRuntime", String.class, null, "--cpu-rt-runtime"),
                Cli.option("cpusetCpus", String.class, null, "--cpuset-cpus"),
                Cli.option("cpusetMems", String.class, null, "--cpuset-mems"),
                Cli.option("cpuIdle", String.class, null, "--cpu-idle"),
                Cli.option("memory", String.class, null, "--memory"),
                Cli.option("memoryReservation", String.class, null, "--memory-reservation"),
                Cli.option("memorySwap", String.class, null, "--memory-swap"),
                Cli.option("kernelMemory", String.class, null, "--kernel-memory"),
                Cli.option("kernelMemoryTcp", String.class, null, "--kernel-memory-tcp"),
                Cli.option("pidsLimit", Long.class, null, "--pids-limit"),
                Cli.option("l3CacheSchema", String.class, null, "--l3-cache-schema"),
                Cli.option("memBwSchema", String.class, null, "--mem-bw-schema"),
                Cli.id());
    }

    @Override
    void read(ParseResult parsed) {
        resources = parsed.matchedOptionValue("--resources", resources);
        blkioWeight = parsed.matchedOptionValue("--blkio-weight", blkioWeight);
        cpuPeriod = parsed.matchedOptionValue("--cpu-period", cpuPeriod);
        cpuQuota = parsed.matchedOptionValue("--cpu-quota", cpuQuota);
        cpuBurst = parsed.matchedOptionValue("--cpu-burst", cpuBurst);
        cpuShare = parsed.matchedOptionValue("--cpu-share", cpuShare);
        cpuRtPeriod = parsed.matchedOptionValue("--cpu-rt-period", cpuRtPeriod);
        cpuRtRuntime = parsed.matchedOptionValue("--cpu-rt-runtime", cpuRtRuntime);
        cpusetCpus = parsed.matchedOptionValue("--cpuset-cpus", cpusetCpus);
        cpusetMems = parsed.matchedOptionValue("--cpuset-mems", cpusetMems);
        cpuIdle = parsed.matchedOptionValue("--cpu-idle", cpuIdle);
        memory = parsed.matchedOptionValue("--memory", memory);
        memoryReservation = parsed.matchedOptionValue("--memory-reservation", memoryReservation);
        memorySwap = parsed.matchedOptionValue("--memory-swap", memorySwap);
        kernelMemory = parsed.matchedOptionValue("--kernel-memory", kernelMemory);
        kernelMemoryTcp = parsed.matchedOptionValue("--kernel-memory-tcp", kernelMemoryTcp);
        pidsLimit = parsed.matchedOptionValue("--pids-limit", pidsLimit);
        l3CacheSchema = parsed.matchedOptionValue("--l3-cache-schema", l3CacheSchema);
        memBwSchema = parsed.matchedOptionValue("--mem-bw-schema", memBwSchema);
        id = parsed.matchedPositionalValue(0, id);
    }

    @Override
    public Integer call() throws IOException {
        main.configure();
        Ids.require(id, "update");
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
        byte[] json = resources.equals("-") ? System.in.readAllBytes() : Files.readAllBytes(Path.of(resources));
        try {
            return Json.read(json, LinuxResources.class);
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
