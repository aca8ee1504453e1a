package io.jrunc.vminit;

import io.jrunc.agent.api.pb.v1.*;
import io.jrunc.ttrpc.Code;
import io.jrunc.ttrpc.RpcException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/** A container's cgroup v2 files, read when asked: memory, memory.events, cpu.stat, pids, io.stat. */
final class CgroupStatsReader {
    private CgroupStatsReader() {}

    static ContainerStatsResponse read(String id) throws RpcException {
        Path dir = CgroupSetup.ROOT.resolve(CgroupSetup.pathOf(id).substring(1));
        try {
            MemoryStats.Builder memory = MemoryStats.newBuilder().setCurrent(number(dir, "memory.current"));
            Long swap = optional(dir, "memory.swap.current");
            if (swap != null) {
                memory.setSwapCurrent(swap);
            }
            Long limit = optional(dir, "memory.max");
            if (limit != null) {
                memory.setLimit(limit);
            }
            Long swapLimit = optional(dir, "memory.swap.max");
            if (swapLimit != null) {
                memory.setSwapLimit(swapLimit);
            }
            Map<String, Long> ev = keyed(dir, "memory.events");
            memory.setEvents(MemoryEvents.newBuilder().setLow(ev.getOrDefault("low", 0L))
                    .setHigh(ev.getOrDefault("high", 0L)).setMax(ev.getOrDefault("max", 0L))
                    .setOom(ev.getOrDefault("oom", 0L)).setOomKill(ev.getOrDefault("oom_kill", 0L))
                    .setOomGroupKill(ev.getOrDefault("oom_group_kill", 0L)));
            Map<String, Long> cpu = keyed(dir, "cpu.stat");
            CpuStats.Builder c = CpuStats.newBuilder().setUsageUsec(cpu.getOrDefault("usage_usec", 0L))
                    .setUserUsec(cpu.getOrDefault("user_usec", 0L)).setSystemUsec(cpu.getOrDefault("system_usec", 0L))
                    .setNrPeriods(cpu.getOrDefault("nr_periods", 0L))
                    .setNrThrottled(cpu.getOrDefault("nr_throttled", 0L))
                    .setThrottledUsec(cpu.getOrDefault("throttled_usec", 0L));
            PidsStats.Builder pids = PidsStats.newBuilder();
            Long pidsCurrent = optional(dir, "pids.current");
            pids.setCurrent(pidsCurrent == null ? 0 : pidsCurrent);
            Long pidsMax = optional(dir, "pids.max");
            if (pidsMax != null) {
                pids.setLimit(pidsMax);
            }
            ContainerStatsResponse.Builder b = ContainerStatsResponse.newBuilder().setMemory(memory).setCpu(c)
                    .setPids(pids);
            Path io = dir.resolve("io.stat");
            if (Files.exists(io)) {
                for (String line : Files.readAllLines(io)) {
                    String[] f = line.trim().split(" ");
                    if (f.length < 2 || !f[0].contains(":")) {
                        continue;
                    }
                    String[] dev = f[0].split(":");
                    IoDeviceStats.Builder d = IoDeviceStats.newBuilder().setMajor(Integer.parseInt(dev[0]))
                            .setMinor(Integer.parseInt(dev[1]));
                    for (int i = 1; i < f.length; i++) {
                        String[] kv = f[i].split("=");
                        long v = Long.parseLong(kv[1]);
                        switch (kv[0]) {
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
            }
            return b.build();
        } catch (NoSuchFileException e) {
            throw new RpcException(Code.NOT_FOUND, "container " + id + " has no cgroup (" + e.getFile() + ")");
        } catch (IOException | RuntimeException e) {
            throw new RpcException(Code.INTERNAL, "reading the cgroup of " + id + ": " + e);
        }
    }

    private static long number(Path dir, String file) throws IOException {
        return Long.parseLong(Files.readString(dir.resolve(file)).trim());
    }

    /** null when the file is absent or reads "max". */
    private static Long optional(Path dir, String file) throws IOException {
        Path p = dir.resolve(file);
        if (!Files.exists(p)) {
            return null;
        }
        String v = Files.readString(p).trim();
        return v.equals("max") ? null : Long.parseLong(v);
    }

    private static Map<String, Long> keyed(Path dir, String file) throws IOException {
        Map<String, Long> map = new HashMap<>();
        Path p = dir.resolve(file);
        if (!Files.exists(p)) {
            return map;
        }
        for (String line : Files.readAllLines(p)) {
            String[] kv = line.trim().split(" ");
            if (kv.length == 2) {
                map.put(kv[0], Long.parseLong(kv[1]));
            }
        }
        return map;
    }
}
