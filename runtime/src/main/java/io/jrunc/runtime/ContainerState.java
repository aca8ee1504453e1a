package io.jrunc.runtime;

import io.jrunc.cgroups.CgroupLocation;
import io.jrunc.cgroups.CgroupMode;
import io.jrunc.spec.JsonTree;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What jrunc persists for a container in ROOT/ID/state.json. The config itself is kept verbatim
 * beside it (ROOT/ID/config.json) and parsed only by commands that need it, because every jrunc
 * command reads this file and parsing a whole config costs start-up time. For the same reason it is
 * written by hand and read with {@link JsonTree}, not with Jackson.
 *
 * @param pid          the init process in the host's pid namespace
 * @param pidStartTime its start time (/proc/PID/stat field 22), which guards against pid reuse
 * @param created      RFC 3339 time of creation, as `state` prints it
 * @param hooks        the hook kinds the config has, so commands without hooks never parse it
 */
public record ContainerState(String id, int pid, long pidStartTime, String ociVersion, String bundle, String rootfs,
        String created, String owner, Map<String, String> annotations, List<String> hooks, CgroupLocation cgroup) {

    public byte[] toJson() {
        StringBuilder out = new StringBuilder(512).append('{');
        member(out, "id").append(JsonTree.quote(new StringBuilder(), id));
        out.append(",\"pid\":").append(pid).append(",\"pidStartTime\":").append(pidStartTime);
        string(out, "ociVersion", ociVersion);
        string(out, "bundle", bundle);
        string(out, "rootfs", rootfs);
        string(out, "created", created);
        string(out, "owner", owner);
        if (annotations != null) {
            out.append(",\"annotations\":");
            object(out, annotations);
        }
        out.append(",\"hooks\":[");
        for (int k = 0; k < hooks.size(); k++) {
            JsonTree.quote(out.append(k == 0 ? "" : ","), hooks.get(k));
        }
        out.append("],\"cgroup\":");
        return cgroupJson(out, cgroup).append('}').toString().getBytes(StandardCharsets.UTF_8);
    }

    /**
     * {@code {"mode":"HYBRID","directories":{"":"/sys/fs/cgroup/unified/x",...}}}: a cgroup location as
     * state.json and creating.json (CreateJournal) hold it.
     */
    static StringBuilder cgroupJson(StringBuilder out, CgroupLocation cgroup) {
        JsonTree.quote(out.append("{\"mode\":"), cgroup.mode().name()).append(",\"directories\":");
        object(out, cgroup.directories());
        return out.append('}');
    }

    /**
     * The location {@link #cgroupJson} wrote, from {@link JsonTree#parse}'s value of it.
     *
     * @throws RuntimeException if {@code json} is not such a location
     */
    static CgroupLocation cgroupFromJson(Object json) {
        Map<String, String> dirs = new TreeMap<>();
        CgroupMode mode = null;
        if (json instanceof Map<?, ?> cg) {
            mode = cg.get("mode") instanceof String s ? CgroupMode.valueOf(s) : null;
            strings(cg.get("directories"), dirs);
        }
        return new CgroupLocation(mode, dirs);
    }

    private static StringBuilder member(StringBuilder out, String name) {
        return out.append('"').append(name).append("\":");
    }

    private static void string(StringBuilder out, String name, String value) {
        out.append(',');
        if (value == null) {
            member(out, name).append("null");
        } else {
            JsonTree.quote(member(out, name), value);
        }
    }

    private static void object(StringBuilder out, Map<String, String> entries) {
        out.append('{');
        boolean first = true;
        for (var e : entries.entrySet()) {
            JsonTree.quote(out.append(first ? "" : ","), e.getKey()).append(':');
            if (e.getValue() == null) {
                out.append("null");
            } else {
                JsonTree.quote(out, e.getValue());
            }
            first = false;
        }
        out.append('}');
    }

    public static ContainerState fromJson(byte[] json) {
        try {
            if (!(JsonTree.parse(json) instanceof Map<?, ?> m)) {
                throw new IllegalArgumentException("not an object");
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
                    List.copyOf(hooks), cgroupFromJson(m.get("cgroup")));
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
