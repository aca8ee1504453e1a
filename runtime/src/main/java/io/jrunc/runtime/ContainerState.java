package io.jrunc.runtime;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import io.jrunc.cgroups.CgroupLocation;
import io.jrunc.cgroups.CgroupMode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What jrunc persists for a container in ROOT/ID/state.json. The config itself is kept verbatim
 * beside it (ROOT/ID/config.json) and parsed only by commands that need it, because every jrunc
 * command reads this file and parsing a whole config costs start-up time. For the same reason it is
 * written with Jackson's streaming generator and read with {@link JsonTree}, not by databind.
 *
 * @param pid          the init process in the host's pid namespace
 * @param pidStartTime its start time (/proc/PID/stat field 22), which guards against pid reuse
 * @param created      RFC 3339 time of creation, as `state` prints it
 * @param hooks        the hook kinds the config has, so commands without hooks never parse it
 */
public record ContainerState(String id, int pid, long pidStartTime, String ociVersion, String bundle, String rootfs,
        String created, String owner, Map<String, String> annotations, List<String> hooks, CgroupLocation cgroup) {

    private static final JsonFactory JSON = new JsonFactory();

    public byte[] toJson() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (JsonGenerator g = JSON.createGenerator(out)) {
            g.writeStartObject();
            g.writeStringField("id", id);
            g.writeNumberField("pid", pid);
            g.writeNumberField("pidStartTime", pidStartTime);
            g.writeStringField("ociVersion", ociVersion);
            g.writeStringField("bundle", bundle);
            g.writeStringField("rootfs", rootfs);
            g.writeStringField("created", created);
            g.writeStringField("owner", owner);
            if (annotations != null) {
                g.writeObjectFieldStart("annotations");
                for (var e : annotations.entrySet()) {
                    g.writeStringField(e.getKey(), e.getValue());
                }
                g.writeEndObject();
            }
            g.writeArrayFieldStart("hooks");
            for (String h : hooks) {
                g.writeString(h);
            }
            g.writeEndArray();
            g.writeObjectFieldStart("cgroup");
            g.writeStringField("mode", cgroup.mode().name());
            g.writeObjectFieldStart("directories");
            for (var e : cgroup.directories().entrySet()) {
                g.writeStringField(e.getKey(), e.getValue());
            }
            g.writeEndObject();
            g.writeEndObject();
            g.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }

    public static ContainerState fromJson(byte[] json) {
        try {
            if (!(JsonTree.parse(json) instanceof Map<?, ?> m)) {
                throw new IllegalArgumentException("not an object");
            }
            Map<String, String> dirs = new TreeMap<>();
            CgroupMode mode = null;
            if (m.get("cgroup") instanceof Map<?, ?> cg) {
                mode = cg.get("mode") instanceof String s ? CgroupMode.valueOf(s) : null;
                strings(cg.get("directories"), dirs);
            }
            List<String> hooks = new ArrayList<>();
            if (m.get("hooks") instanceof List<?> list) {
                for (Object h : list) {
                    hooks.add((String) h);
                }
            }
            Map<String, String> annotations = m.get("annotations") == null ? null
                    : strings(m.get("annotations"), new LinkedHashMap<>());
            return new ContainerState((String) m.get("id"), (int) number(m.get("pid")), number(m.get("pidStartTime")),
                    (String) m.get("ociVersion"), (String) m.get("bundle"), (String) m.get("rootfs"),
                    (String) m.get("created"), m.get("owner") instanceof String o ? o : "", annotations,
                    List.copyOf(hooks), new CgroupLocation(mode, dirs));
        } catch (RuntimeException e) {
            throw new ContainerException("corrupt container state: " + e.getMessage(), e);
        }
    }

    private static long number(Object value) {
        return value == null ? 0 : (Long) value;
    }

    private static Map<String, String> strings(Object object, Map<String, String> into) {
        if (object instanceof Map<?, ?> map) {
            for (var e : map.entrySet()) {
                into.put((String) e.getKey(), (String) e.getValue());
            }
        }
        return into;
    }
}
