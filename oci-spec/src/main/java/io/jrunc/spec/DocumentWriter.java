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
                || value instanceof List<?> list && isRuncStates(list);
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
