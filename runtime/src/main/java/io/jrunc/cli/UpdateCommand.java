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
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

@Command(name = "update", description = "update container resource constraints")
final class UpdateCommand implements Callable<Integer> {
    @ParentCommand Main main;

    @Option(names = {"-r", "--resources"}, description = "path to a file containing the resources to update or '-' to read from the standard input")
    String resources;

    @Option(names = "--blkio-weight") Integer blkioWeight;
    @Option(names = "--cpu-period") String cpuPeriod;
    @Option(names = "--cpu-quota") String cpuQuota;
    @Option(names = "--cpu-burst") String cpuBurst;
    @Option(names = "--cpu-share") String cpuShare;
    @Option(names = "--cpu-rt-period") String cpuRtPeriod;
    @Option(names = "--cpu-rt-runtime") String cpuRtRuntime;
    @Option(names = "--cpuset-cpus") String cpusetCpus;
    @Option(names = "--cpuset-mems") String cpusetMems;
    @Option(names = "--cpu-idle") String cpuIdle;
    @Option(names = "--memory") String memory;
    @Option(names = "--memory-reservation") String memoryReservation;
    @Option(names = "--memory-swap") String memorySwap;
    @Option(names = "--kernel-memory") String kernelMemory;
    @Option(names = "--kernel-memory-tcp") String kernelMemoryTcp;
    @Option(names = "--pids-limit") Long pidsLimit;
    @Option(names = "--l3-cache-schema") String l3CacheSchema;
    @Option(names = "--mem-bw-schema") String memBwSchema;

    @Parameters(index = "0", arity = "0..1") String id;

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
