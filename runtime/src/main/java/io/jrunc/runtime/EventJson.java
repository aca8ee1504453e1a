package io.jrunc.runtime;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import io.jrunc.cgroups.CgroupStats;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * runc's `events` output (libcontainer types/events.go): {"type":"stats"|"oom","id":...,"data":...}, one
 * object per line. Field names and Go's omitempty rules are kept: zero numbers and empty lists are
 * left out where runc's struct tags say omitempty, nested structs are always written.
 */
public final class EventJson {
    private EventJson() {}

    private static final JsonFactory JSON = new JsonFactory();

    public static String oom(String id) {
        return "{\"type\":\"oom\",\"id\":" + Log.quote(id) + "}";
    }

    public static String stats(String id, CgroupStats s) {
        StringWriter out = new StringWriter();
        try (JsonGenerator g = JSON.createGenerator(out)) {
            g.writeStartObject();
            g.writeStringField("type", "stats");
            g.writeStringField("id", id);
            g.writeObjectFieldStart("data");
            cpu(g, s.cpu());
            g.writeObjectFieldStart("cpuset");
            g.writeEndObject();
            memory(g, s.memory());
            g.writeObjectFieldStart("pids");
            if (s.pids() != null) {
                omitZero(g, "current", s.pids().current());
                omitZero(g, "limit", s.pids().limit());
            }
            g.writeEndObject();
            blkio(g, s.blkio());
            g.writeObjectFieldStart("hugetlb");
            if (s.hugetlb() != null) {
                for (var e : new TreeMap<>(s.hugetlb()).entrySet()) {
                    g.writeObjectFieldStart(e.getKey());
                    omitZero(g, "usage", e.getValue().usage());
                    omitZero(g, "max", e.getValue().max());
                    g.writeNumberField("failcnt", e.getValue().failcnt());
                    g.writeEndObject();
                }
            }
            g.writeEndObject();
            g.writeObjectFieldStart("intel_rdt");
            g.writeEndObject();
            g.writeNullField("network_interfaces");
            g.writeEndObject();
            g.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toString();
    }

    private static void cpu(JsonGenerator g, CgroupStats.Cpu cpu) throws IOException {
        g.writeObjectFieldStart("cpu");
        g.writeObjectFieldStart("usage");
        if (cpu != null && cpu.usage() != null) {
            var u = cpu.usage();
            omitZero(g, "total", u.total());
            omitEmpty(g, "percpu", u.percpu());
            omitEmpty(g, "percpu_kernel", u.percpuKernel());
            omitEmpty(g, "percpu_user", u.percpuUser());
            g.writeNumberField("kernel", u.kernel());
            g.writeNumberField("user", u.user());
        } else {
            g.writeNumberField("kernel", 0);
            g.writeNumberField("user", 0);
        }
        g.writeEndObject();
        g.writeObjectFieldStart("throttling");
        if (cpu != null && cpu.throttling() != null) {
            omitZero(g, "periods", cpu.throttling().periods());
            omitZero(g, "throttledPeriods", cpu.throttling().throttledPeriods());
            omitZero(g, "throttledTime", cpu.throttling().throttledTime());
        }
        g.writeEndObject();
        if (cpu != null) {
            psi(g, cpu.psi());
        }
        g.writeEndObject();
    }

    private static void memory(JsonGenerator g, CgroupStats.Memory m) throws IOException {
        g.writeObjectFieldStart("memory");
        if (m != null) {
            omitZero(g, "cache", m.cache());
            entry(g, "usage", m.usage());
            entry(g, "swap", m.swap());
            entry(g, "kernel", m.kernel());
            entry(g, "kernelTCP", m.kernelTCP());
            if (m.raw() != null && !m.raw().isEmpty()) {
                g.writeObjectFieldStart("raw");
                for (Map.Entry<String, Long> e : new TreeMap<>(m.raw()).entrySet()) {
                    g.writeFieldName(e.getKey());
                    unsigned(g, e.getValue());
                }
                g.writeEndObject();
            }
            psi(g, m.psi());
        }
        g.writeEndObject();
    }

    private static void entry(JsonGenerator g, String name, CgroupStats.MemoryEntry e) throws IOException {
        g.writeObjectFieldStart(name);
        if (e != null) {
            g.writeFieldName("limit");
            unsigned(g, e.limit());
            omitZero(g, "usage", e.usage());
            omitZero(g, "max", e.max());
            g.writeNumberField("failcnt", e.failcnt());
        } else {
            g.writeNumberField("limit", 0);
            g.writeNumberField("failcnt", 0);
        }
        g.writeEndObject();
    }

    private static void blkio(JsonGenerator g, CgroupStats.Blkio b) throws IOException {
        g.writeObjectFieldStart("blkio");
        if (b != null) {
            blkioList(g, "ioServiceBytesRecursive", b.ioServiceBytesRecursive());
            blkioList(g, "ioServicedRecursive", b.ioServicedRecursive());
            psi(g, b.psi());
        }
        g.writeEndObject();
    }

    private static void blkioList(JsonGenerator g, String name, List<CgroupStats.BlkioEntry> entries) throws IOException {
        if (entries == null || entries.isEmpty()) {
            return;
        }
        g.writeArrayFieldStart(name);
        for (var e : entries) {
            g.writeStartObject();
            omitZero(g, "major", e.major());
            omitZero(g, "minor", e.minor());
            if (e.op() != null && !e.op().isEmpty()) {
                g.writeStringField("op", e.op());
            }
            omitZero(g, "value", e.value());
            g.writeEndObject();
        }
        g.writeEndArray();
    }

    private static void psi(JsonGenerator g, CgroupStats.Psi psi) throws IOException {
        if (psi == null) {
            return;
        }
        g.writeObjectFieldStart("psi");
        psiData(g, "some", psi.some());
        psiData(g, "full", psi.full());
        g.writeEndObject();
    }

    private static void psiData(JsonGenerator g, String name, CgroupStats.PsiData d) throws IOException {
        g.writeObjectFieldStart(name);
        if (d != null) {
            omitZeroDouble(g, "avg10", d.avg10());
            omitZeroDouble(g, "avg60", d.avg60());
            omitZeroDouble(g, "avg300", d.avg300());
            omitZero(g, "total", d.total());
        }
        g.writeEndObject();
    }

    private static void omitZero(JsonGenerator g, String name, long value) throws IOException {
        if (value != 0) {
            g.writeFieldName(name);
            unsigned(g, value);
        }
    }

    private static void omitZeroDouble(JsonGenerator g, String name, double value) throws IOException {
        if (value != 0) {
            g.writeNumberField(name, value);
        }
    }

    private static void omitEmpty(JsonGenerator g, String name, List<Long> values) throws IOException {
        if (values != null && !values.isEmpty()) {
            g.writeArrayFieldStart(name);
            for (long v : values) {
                unsigned(g, v);
            }
            g.writeEndArray();
        }
    }

    /** uint64 values ("max" is 2^64-1 in runc's output) kept as their unsigned decimal. */
    private static void unsigned(JsonGenerator g, long value) throws IOException {
        g.writeNumber(Long.toUnsignedString(value));
    }
}
