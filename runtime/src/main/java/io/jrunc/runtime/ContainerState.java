package io.jrunc.runtime;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
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
 * command reads this file and parsing a whole config costs start-up time. For the same reason this
 * record is read and written with Jackson's streaming API rather than by databind introspection.
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
        String id = null, ociVersion = null, bundle = null, rootfs = null, created = null, owner = "";
        int pid = 0;
        long start = 0;
        Map<String, String> annotations = null;
        List<String> hooks = new ArrayList<>();
        CgroupMode mode = null;
        Map<String, String> dirs = new TreeMap<>();
        try (JsonParser p = JSON.createParser(json)) {
            expect(p.nextToken(), JsonToken.START_OBJECT);
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String field = p.currentName();
                p.nextToken();
                switch (field) {
                    case "id" -> id = p.getText();
                    case "pid" -> pid = p.getIntValue();
                    case "pidStartTime" -> start = p.getLongValue();
                    case "ociVersion" -> ociVersion = p.getText();
                    case "bundle" -> bundle = p.getText();
                    case "rootfs" -> rootfs = p.getText();
                    case "created" -> created = p.getText();
                    case "owner" -> owner = p.getText();
                    case "annotations" -> annotations = stringMap(p, new LinkedHashMap<>());
                    case "hooks" -> {
                        while (p.nextToken() != JsonToken.END_ARRAY) {
                            hooks.add(p.getText());
                        }
                    }
                    case "cgroup" -> {
                        while (p.nextToken() == JsonToken.FIELD_NAME) {
                            String f = p.currentName();
                            p.nextToken();
                            if (f.equals("mode")) {
                                mode = CgroupMode.valueOf(p.getText());
                            } else if (f.equals("directories")) {
                                stringMap(p, dirs);
                            } else {
                                p.skipChildren();
                            }
                        }
                    }
                    default -> p.skipChildren();
                }
            }
        } catch (IOException | RuntimeException e) {
            throw new ContainerException("corrupt container state: " + e.getMessage(), e);
        }
        return new ContainerState(id, pid, start, ociVersion, bundle, rootfs, created, owner, annotations,
                List.copyOf(hooks), new CgroupLocation(mode, dirs));
    }

    private static Map<String, String> stringMap(JsonParser p, Map<String, String> into) throws IOException {
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String key = p.currentName();
            p.nextToken();
            into.put(key, p.getText());
        }
        return into;
    }

    private static void expect(JsonToken actual, JsonToken wanted) throws IOException {
        if (actual != wanted) {
            throw new IOException("expected " + wanted + ", got " + actual);
        }
    }
}
