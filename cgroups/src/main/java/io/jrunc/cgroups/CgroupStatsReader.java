package io.jrunc.cgroups;

import io.jrunc.cgroups.CgroupStats.BlkioEntry;
import io.jrunc.cgroups.CgroupStats.MemoryEntry;
import io.jrunc.cgroups.CgroupStats.Psi;
import io.jrunc.cgroups.CgroupStats.PsiData;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads {@link CgroupStats} from the files runc reads (opencontainers/cgroups fs/*.go GetStats and
 * fs2/*.go stat*). Missing files leave their fields zero: a cgroup without a controller has no
 * numbers for it, which is not an error for a stats snapshot.
 */
final class CgroupStatsReader {
    /** USER_HZ: cpuacct.stat counts in these ticks (runc assumes 100 too). */
    private static final long CLOCK_TICKS = 100;
    private static final long NANOS_PER_SECOND = 1_000_000_000L;

    private final CgroupFiles files;

    CgroupStatsReader(CgroupFiles files) {
        this.files = files;
    }

    /** @param byController v1 controller → directory; {@code unified} the v2 directory of a hybrid host or null */
    CgroupStats v1(Map<String, Path> byController, Path unified, List<String> hugepageSizes) throws CgroupException {
        Psi cpuPsi = unified == null ? null : psi(unified.resolve("cpu.pressure"));
        Psi memoryPsi = unified == null ? null : psi(unified.resolve("memory.pressure"));
        Psi ioPsi = unified == null ? null : psi(unified.resolve("io.pressure"));

        Path cpuacct = byController.get("cpuacct");
        long total = 0, user = 0, kernel = 0;
        List<Long> percpu = List.of(), percpuKernel = List.of(), percpuUser = List.of();
        if (cpuacct != null) {
            total = number(cpuacct.resolve("cpuacct.usage"));
            percpu = numbers(cpuacct.resolve("cpuacct.usage_percpu"));
            percpuKernel = numbers(cpuacct.resolve("cpuacct.usage_percpu_sys"));
            percpuUser = numbers(cpuacct.resolve("cpuacct.usage_percpu_user"));
            Map<String, Long> stat = keyValues(cpuacct.resolve("cpuacct.stat"));
            user = stat.getOrDefault("user", 0L) * NANOS_PER_SECOND / CLOCK_TICKS;
            kernel = stat.getOrDefault("system", 0L) * NANOS_PER_SECOND / CLOCK_TICKS;
        }
        Path cpu = byController.get("cpu");
        Map<String, Long> cpuStat = cpu == null ? Map.of() : keyValues(cpu.resolve("cpu.stat"));
        CgroupStats.Cpu cpuStats = new CgroupStats.Cpu(
                new CgroupStats.CpuUsage(total, percpu, percpuKernel, percpuUser, kernel, user),
                new CgroupStats.Throttling(cpuStat.getOrDefault("nr_periods", 0L), cpuStat.getOrDefault("nr_throttled", 0L),
                        cpuStat.getOrDefault("throttled_time", 0L)),
                cpuPsi);

        Path memory = byController.get("memory");
        CgroupStats.Memory memoryStats;
        if (memory != null) {
            Map<String, Long> raw = keyValues(memory.resolve("memory.stat"));
            memoryStats = new CgroupStats.Memory(raw.getOrDefault("cache", 0L),
                    v1MemoryEntry(memory, "memory"), v1MemoryEntry(memory, "memory.memsw"),
                    v1MemoryEntry(memory, "memory.kmem"), v1MemoryEntry(memory, "memory.kmem.tcp"), raw, memoryPsi);
        } else {
            memoryStats = emptyMemory(memoryPsi);
        }

        Path pids = byController.get("pids");
        CgroupStats.Pids pidsStats = pids == null ? new CgroupStats.Pids(0, 0) : pids(pids);

        Path blkio = byController.get("blkio");
        CgroupStats.Blkio blkioStats = new CgroupStats.Blkio(List.of(), List.of(), ioPsi);
        if (blkio != null) {
            // runc prefers the CFQ/BFQ files and falls back to the throttle ones
            String bytes = firstExisting(blkio, "blkio.io_service_bytes_recursive", "blkio.bfq.io_service_bytes_recursive",
                    "blkio.throttle.io_service_bytes_recursive");
            String ios = firstExisting(blkio, "blkio.io_serviced_recursive", "blkio.bfq.io_serviced_recursive",
                    "blkio.throttle.io_serviced_recursive");
            blkioStats = new CgroupStats.Blkio(v1Blkio(blkio, bytes), v1Blkio(blkio, ios), ioPsi);
        }

        Map<String, CgroupStats.Hugetlb> hugetlb = new LinkedHashMap<>();
        Path hugetlbDir = byController.get("hugetlb");
        if (hugetlbDir != null) {
            for (String size : hugepageSizes) {
                String prefix = "hugetlb." + size + ".";
                hugetlb.put(size, new CgroupStats.Hugetlb(number(hugetlbDir.resolve(prefix + "usage_in_bytes")),
                        number(hugetlbDir.resolve(prefix + "max_usage_in_bytes")), number(hugetlbDir.resolve(prefix + "failcnt"))));
            }
        } else if (unified != null) {
            hugetlb = v2Hugetlb(unified, hugepageSizes);
        }
        return new CgroupStats(cpuStats, memoryStats, pidsStats, blkioStats, hugetlb);
    }

    CgroupStats v2(Path dir, List<String> hugepageSizes) throws CgroupException {
        Map<String, Long> cpuStat = keyValues(dir.resolve("cpu.stat"));
        CgroupStats.Cpu cpu = new CgroupStats.Cpu(
                new CgroupStats.CpuUsage(cpuStat.getOrDefault("usage_usec", 0L) * 1000, List.of(), List.of(), List.of(),
                        cpuStat.getOrDefault("system_usec", 0L) * 1000, cpuStat.getOrDefault("user_usec", 0L) * 1000),
                new CgroupStats.Throttling(cpuStat.getOrDefault("nr_periods", 0L), cpuStat.getOrDefault("nr_throttled", 0L),
                        cpuStat.getOrDefault("throttled_usec", 0L) * 1000),
                psi(dir.resolve("cpu.pressure")));

        Psi memoryPsi = psi(dir.resolve("memory.pressure"));
        CgroupStats.Memory memory;
        if (files.exists(dir.resolve("memory.current"))) {
            Map<String, Long> raw = keyValues(dir.resolve("memory.stat"));
            MemoryEntry usage = new MemoryEntry(number(dir.resolve("memory.max")), number(dir.resolve("memory.current")),
                    number(dir.resolve("memory.peak")), keyValues(dir.resolve("memory.events")).getOrDefault("max", 0L));
            MemoryEntry swapOnly = new MemoryEntry(number(dir.resolve("memory.swap.max")), number(dir.resolve("memory.swap.current")),
                    number(dir.resolve("memory.swap.peak")), keyValues(dir.resolve("memory.swap.events")).getOrDefault("max", 0L));
            // v1 reports memory+swap; runc adds memory to v2's swap-only numbers for compatibility
            // (limit stays "max" if either is; the peak of the sum is unknown, so 0).
            long swapLimit = swapOnly.limit() == -1 || usage.limit() == -1 ? -1 : swapOnly.limit() + usage.limit();
            MemoryEntry swap = new MemoryEntry(swapLimit, swapOnly.usage() + usage.usage(), 0, swapOnly.failcnt());
            memory = new CgroupStats.Memory(raw.getOrDefault("file", 0L), usage, swap, MemoryEntry.EMPTY, MemoryEntry.EMPTY,
                    raw, memoryPsi);
        } else {
            memory = emptyMemory(memoryPsi);
        }

        CgroupStats.Pids pids;
        if (files.exists(dir.resolve("pids.current"))) {
            pids = pids(dir);
        } else {
            // no pids controller: count cgroup.procs, as runc
            long count = files.read(dir.resolve(CgroupDirectory.PROCS)).lines().filter(l -> !l.isBlank()).count();
            pids = new CgroupStats.Pids(count, 0);
        }

        List<BlkioEntry> bytes = new ArrayList<>();
        List<BlkioEntry> ios = new ArrayList<>();
        if (files.exists(dir.resolve("io.stat"))) {
            for (String line : files.read(dir.resolve("io.stat")).split("\n")) {
                String[] fields = line.trim().split("\\s+");
                String[] device = fields[0].split(":");
                if (device.length != 2) {
                    continue;
                }
                long major = Long.parseLong(device[0]);
                long minor = Long.parseLong(device[1]);
                for (int i = 1; i < fields.length; i++) {
                    String[] kv = fields[i].split("=");
                    if (kv.length != 2) {
                        continue;
                    }
                    long value = Long.parseUnsignedLong(kv[1]);
                    switch (kv[0]) {
                        case "rbytes" -> bytes.add(new BlkioEntry(major, minor, "Read", value));
                        case "wbytes" -> bytes.add(new BlkioEntry(major, minor, "Write", value));
                        case "rios" -> ios.add(new BlkioEntry(major, minor, "Read", value));
                        case "wios" -> ios.add(new BlkioEntry(major, minor, "Write", value));
                        default -> { }
                    }
                }
            }
        }
        CgroupStats.Blkio blkio = new CgroupStats.Blkio(bytes, ios, psi(dir.resolve("io.pressure")));
        return new CgroupStats(cpu, memory, pids, blkio, v2Hugetlb(dir, hugepageSizes));
    }

    private Map<String, CgroupStats.Hugetlb> v2Hugetlb(Path dir, List<String> sizes) throws CgroupException {
        Map<String, CgroupStats.Hugetlb> hugetlb = new LinkedHashMap<>();
        for (String size : sizes) {
            Path current = dir.resolve("hugetlb." + size + ".current");
            if (files.exists(current)) {
                hugetlb.put(size, new CgroupStats.Hugetlb(number(current), 0,
                        keyValues(dir.resolve("hugetlb." + size + ".events")).getOrDefault("max", 0L)));
            }
        }
        return hugetlb;
    }

    private CgroupStats.Pids pids(Path dir) throws CgroupException {
        long limit = number(dir.resolve("pids.max"));
        return new CgroupStats.Pids(number(dir.resolve("pids.current")), limit == -1 ? 0 : limit);
    }

    private MemoryEntry v1MemoryEntry(Path dir, String prefix) throws CgroupException {
        if (!files.exists(dir.resolve(prefix + ".usage_in_bytes"))) {
            return MemoryEntry.EMPTY;
        }
        return new MemoryEntry(number(dir.resolve(prefix + ".limit_in_bytes")), number(dir.resolve(prefix + ".usage_in_bytes")),
                number(dir.resolve(prefix + ".max_usage_in_bytes")), number(dir.resolve(prefix + ".failcnt")));
    }

    private static CgroupStats.Memory emptyMemory(Psi psi) {
        return new CgroupStats.Memory(0, MemoryEntry.EMPTY, MemoryEntry.EMPTY, MemoryEntry.EMPTY, MemoryEntry.EMPTY, Map.of(), psi);
    }

    private List<BlkioEntry> v1Blkio(Path dir, String file) throws CgroupException {
        List<BlkioEntry> entries = new ArrayList<>();
        if (file == null) {
            return entries;
        }
        for (String line : files.read(dir.resolve(file)).split("\n")) {
            String[] fields = line.trim().split("[\\s:]+"); // "8:0 Read 1282048"; "Total N" lines are skipped
            if (fields.length == 4) {
                try {
                    entries.add(new BlkioEntry(Long.parseLong(fields[0]), Long.parseLong(fields[1]), fields[2],
                            Long.parseUnsignedLong(fields[3])));
                } catch (NumberFormatException ignored) {
                    // not an entry
                }
            }
        }
        return entries;
    }

    private String firstExisting(Path dir, String... names) {
        for (String name : names) {
            if (files.exists(dir.resolve(name))) {
                return name;
            }
        }
        return null;
    }

    /** A PSI file: "some avg10=0.00 avg60=0.00 avg300=0.00 total=0" and maybe a "full" line; null if absent. */
    Psi psi(Path file) throws CgroupException {
        if (!files.exists(file)) {
            return null;
        }
        PsiData some = null, full = null;
        for (String line : files.read(file).split("\n")) {
            String[] fields = line.trim().split("\\s+");
            if (fields.length < 5) {
                continue;
            }
            Map<String, String> kv = new LinkedHashMap<>();
            for (int i = 1; i < fields.length; i++) {
                String[] pair = fields[i].split("=", 2);
                if (pair.length == 2) {
                    kv.put(pair[0], pair[1]);
                }
            }
            PsiData data = new PsiData(Double.parseDouble(kv.getOrDefault("avg10", "0")),
                    Double.parseDouble(kv.getOrDefault("avg60", "0")), Double.parseDouble(kv.getOrDefault("avg300", "0")),
                    Long.parseUnsignedLong(kv.getOrDefault("total", "0")));
            if (fields[0].equals("some")) {
                some = data;
            } else if (fields[0].equals("full")) {
                full = data;
            }
        }
        return some == null && full == null ? null : new Psi(some, full);
    }

    private long number(Path file) throws CgroupException {
        return files.exists(file) ? CgroupNumbers.parseUnsigned(files.read(file), file) : 0;
    }

    private List<Long> numbers(Path file) throws CgroupException {
        if (!files.exists(file)) {
            return List.of();
        }
        List<Long> values = new ArrayList<>();
        for (String word : files.read(file).trim().split("\\s+")) {
            if (!word.isEmpty()) {
                values.add(Long.parseUnsignedLong(word));
            }
        }
        return values;
    }

    Map<String, Long> keyValues(Path file) throws CgroupException {
        return files.exists(file) ? CgroupNumbers.keyValues(files.read(file)) : Map.of();
    }
}
