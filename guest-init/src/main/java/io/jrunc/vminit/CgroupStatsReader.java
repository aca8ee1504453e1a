package io.jrunc.vminit;

import io.jrunc.agent.api.pb.v1.*;
import io.jrunc.ttrpc.Code;
import io.jrunc.ttrpc.RpcException;
import java.io.IOException;
import java.util.List;

/** A container's cgroup v2 files, read when asked ({@link KernelFiles}): memory, memory.events, cpu.stat, pids, io.stat. */
final class CgroupStatsReader {
    private CgroupStatsReader() {}

    static ContainerStatsResponse read(String id) throws RpcException {
        String dir = CgroupSetup.ROOT.resolve(CgroupSetup.pathOf(id).substring(1)).toString();
        try {
            String current = KernelFiles.read(dir, "memory.current");
            if (current == null) {
                throw new RpcException(Code.NOT_FOUND, "container " + id + " has no cgroup (" + dir + "/memory.current)");
            }
            MemoryStats.Builder memory = MemoryStats.newBuilder().setCurrent(Long.parseLong(current.trim()));
            Long swap = KernelFiles.number(dir, "memory.swap.current");
            if (swap != null) {
                memory.setSwapCurrent(swap);
            }
            Long limit = KernelFiles.number(dir, "memory.max");
            if (limit != null) {
                memory.setLimit(limit);
            }
            Long swapLimit = KernelFiles.number(dir, "memory.swap.max");
            if (swapLimit != null) {
                memory.setSwapLimit(swapLimit);
            }
            String ev = orEmpty(KernelFiles.read(dir, "memory.events"));
            memory.setEvents(MemoryEvents.newBuilder().setLow(KernelFiles.field(ev, "low"))
                    .setHigh(KernelFiles.field(ev, "high")).setMax(KernelFiles.field(ev, "max"))
                    .setOom(KernelFiles.field(ev, "oom")).setOomKill(KernelFiles.field(ev, "oom_kill"))
                    .setOomGroupKill(KernelFiles.field(ev, "oom_group_kill")));
            String cpu = orEmpty(KernelFiles.read(dir, "cpu.stat"));
            CpuStats.Builder c = CpuStats.newBuilder().setUsageUsec(KernelFiles.field(cpu, "usage_usec"))
                    .setUserUsec(KernelFiles.field(cpu, "user_usec")).setSystemUsec(KernelFiles.field(cpu, "system_usec"))
                    .setNrPeriods(KernelFiles.field(cpu, "nr_periods"))
                    .setNrThrottled(KernelFiles.field(cpu, "nr_throttled"))
                    .setThrottledUsec(KernelFiles.field(cpu, "throttled_usec"));
            PidsStats.Builder pids = PidsStats.newBuilder();
            Long pidsCurrent = KernelFiles.number(dir, "pids.current");
            pids.setCurrent(pidsCurrent == null ? 0 : pidsCurrent);
            Long pidsMax = KernelFiles.number(dir, "pids.max");
            if (pidsMax != null) {
                pids.setLimit(pidsMax);
            }
            ContainerStatsResponse.Builder b = ContainerStatsResponse.newBuilder().setMemory(memory).setCpu(c)
                    .setPids(pids);
            for (String line : KernelFiles.lines(orEmpty(KernelFiles.read(dir, "io.stat")))) {
                List<String> f = KernelFiles.words(line);
                int colon = f.isEmpty() ? -1 : f.get(0).indexOf(':');
                if (f.size() < 2 || colon < 0) {
                    continue;
                }
                IoDeviceStats.Builder d = IoDeviceStats.newBuilder().setMajor(Integer.parseInt(f.get(0).substring(0, colon)))
                        .setMinor(Integer.parseInt(f.get(0).substring(colon + 1)));
                for (int i = 1; i < f.size(); i++) {
                    String kv = f.get(i);
                    int eq = kv.indexOf('=');
                    if (eq < 0) {
                        continue;
                    }
                    long v = Long.parseLong(kv.substring(eq + 1));
                    switch (kv.substring(0, eq)) {
                        case "rbytes" -> d.setRbytes(v);
                        case "wbytes" -> d.setWbytes(v);
                        case "rios" -> d.setRios(v);
                        case "wios" -> d.setWios(v);
                        case "dbytes" -> d.setDbytes(v);
                        case "dios" -> d.setDios(v);
                        default -> { }
                    }
                }
                b.addIo(d);
            }
            return b.build();
        } catch (IOException | RuntimeException e) {
            throw new RpcException(Code.INTERNAL, "reading the cgroup of " + id + ": " + e);
        }
    }

    private static String orEmpty(String text) {
        return text == null ? "" : text;
    }
}
