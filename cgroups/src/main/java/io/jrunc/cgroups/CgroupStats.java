package io.jrunc.cgroups;

import java.util.List;
import java.util.Map;

/**
 * A snapshot of a container's cgroup counters, shaped like the {@code data} of runc's
 * {@code events --stats} JSON (runc types/events.go {@code Stats}), so the runtime can print it field
 * by field: component names are the JSON keys (except {@code percpuKernel}/{@code percpuUser}, which
 * runc spells {@code percpu_kernel}/{@code percpu_user}). All counters are Go uint64: a negative long
 * is above 2^63, and -1 (2^64-1) is "max", as runc reports an unlimited limit. Units as runc: CPU times
 * in nanoseconds, memory in bytes.
 *
 * <p>Sources: cgroup v1 cpuacct.*, cpu.stat, memory.*, pids.*, blkio.* and hugetlb.* files; cgroup v2
 * cpu.stat, memory.* (swap reported as memory+swap like v1, as runc does), pids.*, io.stat and
 * hugetlb.*; PSI from the *.pressure files of the v2 directory when there is one (also on hybrid hosts).
 * A controller the cgroup does not have leaves its part zero/empty.
 */
public record CgroupStats(Cpu cpu, Memory memory, Pids pids, Blkio blkio, Map<String, Hugetlb> hugetlb) {

    public record Cpu(CpuUsage usage, Throttling throttling, Psi psi) {
    }

    /** Nanoseconds. {@code kernel}/{@code user} are totals; the per-CPU lists are empty where the kernel has none. */
    public record CpuUsage(long total, List<Long> percpu, List<Long> percpuKernel, List<Long> percpuUser,
                           long kernel, long user) {
    }

    public record Throttling(long periods, long throttledPeriods, long throttledTime) {
    }

    /** {@code raw} is memory.stat as it is; {@code cache} is its "cache" (v1) or "file" (v2). */
    public record Memory(long cache, MemoryEntry usage, MemoryEntry swap, MemoryEntry kernel, MemoryEntry kernelTCP,
                         Map<String, Long> raw, Psi psi) {
    }

    public record MemoryEntry(long limit, long usage, long max, long failcnt) {
        static final MemoryEntry EMPTY = new MemoryEntry(0, 0, 0, 0);
    }

    /** {@code limit} 0 means no limit, as in runc. */
    public record Pids(long current, long limit) {
    }

    public record Blkio(List<BlkioEntry> ioServiceBytesRecursive, List<BlkioEntry> ioServicedRecursive, Psi psi) {
    }

    public record BlkioEntry(long major, long minor, String op, long value) {
    }

    public record Hugetlb(long usage, long max, long failcnt) {
    }

    /** A *.pressure file; {@code full} is null where the kernel has no "full" line (cpu.pressure before 5.13). */
    public record Psi(PsiData some, PsiData full) {
    }

    public record PsiData(double avg10, double avg60, double avg300, long total) {
    }
}
