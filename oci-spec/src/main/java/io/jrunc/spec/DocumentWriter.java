package io.jrunc.spec;

import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * Hand-written writers for the small documents commands print on every run: {@link RuncState}
 * ({@code state}, {@code list}), {@link State} (hooks' stdin) and {@link Features}. {@link Json#write} and
 * {@link Json#writeIndented} use them instead of databind, whose first write of a record costs a fresh JVM
 * hundreds of milliseconds of introspection.
 *
 * <p>The output is byte-identical to what databind writes for the same value, because the same calls reach
 * the same kind of generator: the same factory configuration (Go's escaping), the same
 * {@link GoIndentPrinter}, members in record component order, nulls omitted, map keys sorted.
 * {@code DocumentWriterTest} compares the two.
 */
final class DocumentWriter {

    private DocumentWriter() {
    }

    /** Whether {@code value} is a document written here rather than by databind. */
    static boolean writes(Object value) {
        return value instanceof RuncState || value instanceof State || value instanceof Features
                || value instanceof LinuxResources || value instanceof List<?> list && isRuncStates(list);
    }

    /** What {@code runc list --format json} prints: a non-empty list of runc states. */
    private static boolean isRuncStates(List<?> list) {
        if (list.isEmpty()) {
            return false;
        }
        for (Object item : list) {
            if (!(item instanceof RuncState)) {
                return false;
            }
        }
        return true;
    }

    /** @param indent as {@link Json#writeIndented}, or null for compact output */
    static String write(Object value, String indent) {
        StringWriter out = new StringWriter(256);
        try (JsonGenerator gen = JsonFactories.GO.createGenerator(out)) {
            if (indent != null) {
                gen.setPrettyPrinter(new GoIndentPrinter(indent));
            }
            if (value instanceof RuncState state) {
                runcState(gen, state);
            } else if (value instanceof State state) {
                state(gen, state);
            } else if (value instanceof Features features) {
                features(gen, features);
            } else if (value instanceof LinuxResources resources) {
                resources(gen, resources);
            } else if (value instanceof List<?> states) {
                gen.writeStartArray();
                for (Object state : states) {
                    runcState(gen, (RuncState) state);
                }
                gen.writeEndArray();
            } else {
                throw new IllegalArgumentException("no hand-written writer for " + value.getClass().getName());
            }
        } catch (IOException e) {
            // A StringWriter does not fail; only a bug can get here.
            throw new UncheckedIOException("cannot write " + value.getClass().getSimpleName(), e);
        }
        return out.toString();
    }

    private static void runcState(JsonGenerator gen, RuncState state) throws IOException {
        gen.writeStartObject();
        gen.writeStringField("ociVersion", state.ociVersion());
        gen.writeStringField("id", state.id());
        gen.writeNumberField("pid", state.pid());
        gen.writeStringField("status", state.status().jsonName());
        gen.writeStringField("bundle", state.bundle());
        gen.writeStringField("rootfs", state.rootfs());
        gen.writeStringField("created", GoTime.format(state.created()));
        stringMap(gen, "annotations", state.annotations());
        gen.writeStringField("owner", state.owner());
        gen.writeEndObject();
    }

    private static void state(JsonGenerator gen, State state) throws IOException {
        gen.writeStartObject();
        string(gen, "ociVersion", state.ociVersion());
        string(gen, "id", state.id());
        if (state.status() != null) {
            gen.writeStringField("status", state.status().jsonName());
        }
        if (state.pid() != null) {
            gen.writeNumberField("pid", state.pid().intValue());
        }
        string(gen, "bundle", state.bundle());
        stringMap(gen, "annotations", state.annotations());
        gen.writeEndObject();
    }

    private static void features(JsonGenerator gen, Features features) throws IOException {
        gen.writeStartObject();
        string(gen, "ociVersionMin", features.ociVersionMin());
        string(gen, "ociVersionMax", features.ociVersionMax());
        strings(gen, "hooks", features.hooks());
        strings(gen, "mountOptions", features.mountOptions());
        Features.Linux linux = features.linux();
        if (linux != null) {
            gen.writeFieldName("linux");
            linuxFeatures(gen, linux);
        }
        stringMap(gen, "annotations", features.annotations());
        strings(gen, "potentiallyUnsafeConfigAnnotations", features.potentiallyUnsafeConfigAnnotations());
        gen.writeEndObject();
    }

    private static void linuxFeatures(JsonGenerator gen, Features.Linux linux) throws IOException {
        gen.writeStartObject();
        strings(gen, "namespaces", linux.namespaces());
        strings(gen, "capabilities", linux.capabilities());
        Features.Cgroup cgroup = linux.cgroup();
        if (cgroup != null) {
            gen.writeObjectFieldStart("cgroup");
            bool(gen, "v1", cgroup.v1());
            bool(gen, "v2", cgroup.v2());
            bool(gen, "systemd", cgroup.systemd());
            bool(gen, "systemdUser", cgroup.systemdUser());
            bool(gen, "rdma", cgroup.rdma());
            gen.writeEndObject();
        }
        Features.Seccomp seccomp = linux.seccomp();
        if (seccomp != null) {
            gen.writeObjectFieldStart("seccomp");
            bool(gen, "enabled", seccomp.enabled());
            strings(gen, "actions", seccomp.actions());
            strings(gen, "operators", seccomp.operators());
            strings(gen, "archs", seccomp.archs());
            strings(gen, "knownFlags", seccomp.knownFlags());
            strings(gen, "supportedFlags", seccomp.supportedFlags());
            gen.writeEndObject();
        }
        if (linux.apparmor() != null) {
            enabledOnly(gen, "apparmor", linux.apparmor().enabled());
        }
        if (linux.selinux() != null) {
            enabledOnly(gen, "selinux", linux.selinux().enabled());
        }
        Features.IntelRdt intelRdt = linux.intelRdt();
        if (intelRdt != null) {
            gen.writeObjectFieldStart("intelRdt");
            bool(gen, "enabled", intelRdt.enabled());
            bool(gen, "schemata", intelRdt.schemata());
            bool(gen, "monitoring", intelRdt.monitoring());
            gen.writeEndObject();
        }
        Features.MemoryPolicy memoryPolicy = linux.memoryPolicy();
        if (memoryPolicy != null) {
            gen.writeObjectFieldStart("memoryPolicy");
            strings(gen, "modes", memoryPolicy.modes());
            strings(gen, "flags", memoryPolicy.flags());
            gen.writeEndObject();
        }
        Features.MountExtensions mountExtensions = linux.mountExtensions();
        if (mountExtensions != null) {
            gen.writeObjectFieldStart("mountExtensions");
            if (mountExtensions.idmap() != null) {
                enabledOnly(gen, "idmap", mountExtensions.idmap().enabled());
            }
            gen.writeEndObject();
        }
        if (linux.netDevices() != null) {
            enabledOnly(gen, "netDevices", linux.netDevices().enabled());
        }
        gen.writeEndObject();
    }

    /** The many feature objects whose only member is {@code enabled}. */
    private static void enabledOnly(JsonGenerator gen, String name, Boolean enabled) throws IOException {
        gen.writeObjectFieldStart(name);
        bool(gen, "enabled", enabled);
        gen.writeEndObject();
    }

    /**
     * A LinuxResources document as config.md names its members, nulls left out, uint64 members unsigned:
     * what `update` stores and reads back with {@link SpecReader#readResources}, without databind (whose
     * start-up made `update` a quarter of a second slower).
     */
    private static void resources(JsonGenerator gen, LinuxResources r) throws IOException {
        gen.writeStartObject();
        if (r.devices() != null) {
            gen.writeArrayFieldStart("devices");
            for (LinuxDeviceCgroup d : r.devices()) {
                gen.writeStartObject();
                bool(gen, "allow", d.allow());
                string(gen, "type", d.type());
                number(gen, "major", d.major());
                number(gen, "minor", d.minor());
                string(gen, "access", d.access());
                gen.writeEndObject();
            }
            gen.writeEndArray();
        }
        LinuxMemory m = r.memory();
        if (m != null) {
            gen.writeObjectFieldStart("memory");
            number(gen, "limit", m.limit());
            number(gen, "reservation", m.reservation());
            number(gen, "swap", m.swap());
            number(gen, "kernel", m.kernel());
            number(gen, "kernelTCP", m.kernelTCP());
            unsigned(gen, "swappiness", m.swappiness());
            bool(gen, "disableOOMKiller", m.disableOOMKiller());
            bool(gen, "useHierarchy", m.useHierarchy());
            bool(gen, "checkBeforeUpdate", m.checkBeforeUpdate());
            gen.writeEndObject();
        }
        LinuxCPU c = r.cpu();
        if (c != null) {
            gen.writeObjectFieldStart("cpu");
            unsigned(gen, "shares", c.shares());
            number(gen, "quota", c.quota());
            unsigned(gen, "burst", c.burst());
            unsigned(gen, "period", c.period());
            number(gen, "realtimeRuntime", c.realtimeRuntime());
            unsigned(gen, "realtimePeriod", c.realtimePeriod());
            string(gen, "cpus", c.cpus());
            string(gen, "mems", c.mems());
            number(gen, "idle", c.idle());
            gen.writeEndObject();
        }
        if (r.pids() != null) {
            gen.writeObjectFieldStart("pids");
            number(gen, "limit", r.pids().limit());
            gen.writeEndObject();
        }
        LinuxBlockIO b = r.blockIO();
        if (b != null) {
            gen.writeObjectFieldStart("blockIO");
            number(gen, "weight", b.weight() == null ? null : b.weight().longValue());
            number(gen, "leafWeight", b.leafWeight() == null ? null : b.leafWeight().longValue());
            if (b.weightDevice() != null) {
                gen.writeArrayFieldStart("weightDevice");
                for (LinuxWeightDevice w : b.weightDevice()) {
                    gen.writeStartObject();
                    number(gen, "major", w.major());
                    number(gen, "minor", w.minor());
                    number(gen, "weight", w.weight() == null ? null : w.weight().longValue());
                    number(gen, "leafWeight", w.leafWeight() == null ? null : w.leafWeight().longValue());
                    gen.writeEndObject();
                }
                gen.writeEndArray();
            }
            throttle(gen, "throttleReadBpsDevice", b.throttleReadBpsDevice());
            throttle(gen, "throttleWriteBpsDevice", b.throttleWriteBpsDevice());
            throttle(gen, "throttleReadIOPSDevice", b.throttleReadIOPSDevice());
            throttle(gen, "throttleWriteIOPSDevice", b.throttleWriteIOPSDevice());
            gen.writeEndObject();
        }
        if (r.hugepageLimits() != null) {
            gen.writeArrayFieldStart("hugepageLimits");
            for (LinuxHugepageLimit h : r.hugepageLimits()) {
                gen.writeStartObject();
                string(gen, "pageSize", h.pageSize());
                unsigned(gen, "limit", h.limit());
                gen.writeEndObject();
            }
            gen.writeEndArray();
        }
        LinuxNetwork n = r.network();
        if (n != null) {
            gen.writeObjectFieldStart("network");
            number(gen, "classID", n.classID());
            if (n.priorities() != null) {
                gen.writeArrayFieldStart("priorities");
                for (LinuxInterfacePriority p : n.priorities()) {
                    gen.writeStartObject();
                    string(gen, "name", p.name());
                    number(gen, "priority", p.priority());
                    gen.writeEndObject();
                }
                gen.writeEndArray();
            }
            gen.writeEndObject();
        }
        if (r.rdma() != null) {
            gen.writeObjectFieldStart("rdma");
            for (Map.Entry<String, LinuxRdma> e : r.rdma().entrySet()) {
                gen.writeObjectFieldStart(e.getKey());
                number(gen, "hcaHandles", e.getValue().hcaHandles());
                number(gen, "hcaObjects", e.getValue().hcaObjects());
                gen.writeEndObject();
            }
            gen.writeEndObject();
        }
        stringMap(gen, "unified", r.unified());
        gen.writeEndObject();
    }

    private static void throttle(JsonGenerator gen, String name, List<LinuxThrottleDevice> devices) throws IOException {
        if (devices == null) {
            return;
        }
        gen.writeArrayFieldStart(name);
        for (LinuxThrottleDevice t : devices) {
            gen.writeStartObject();
            number(gen, "major", t.major());
            number(gen, "minor", t.minor());
            unsigned(gen, "rate", t.rate());
            gen.writeEndObject();
        }
        gen.writeEndArray();
    }

    private static void number(JsonGenerator gen, String name, Long value) throws IOException {
        if (value != null) {
            gen.writeNumberField(name, value);
        }
    }

    /** A {@link Uint64} member: values above Long.MAX_VALUE are kept as negative longs with the same bits. */
    private static void unsigned(JsonGenerator gen, String name, Long value) throws IOException {
        if (value != null) {
            gen.writeFieldName(name);
            gen.writeNumber(Long.toUnsignedString(value));
        }
    }

    private static void string(JsonGenerator gen, String name, String value) throws IOException {
        if (value != null) {
            gen.writeStringField(name, value);
        }
    }

    private static void bool(JsonGenerator gen, String name, Boolean value) throws IOException {
        if (value != null) {
            gen.writeBooleanField(name, value);
        }
    }

    private static void strings(JsonGenerator gen, String name, List<String> values) throws IOException {
        if (values != null) {
            gen.writeArrayFieldStart(name);
            for (String value : values) {
                gen.writeString(value);
            }
            gen.writeEndArray();
        }
    }

    /** Keys sorted as databind's ORDER_MAP_ENTRIES_BY_KEYS sorts them (String order), like Go. */
    private static void stringMap(JsonGenerator gen, String name, Map<String, String> entries) throws IOException {
        if (entries != null) {
            String[] keys = entries.keySet().toArray(new String[0]);
            Arrays.sort(keys);
            gen.writeObjectFieldStart(name);
            for (String key : keys) {
                gen.writeStringField(key, entries.get(key));
            }
            gen.writeEndObject();
        }
    }
}
