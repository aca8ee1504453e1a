package io.jrunc.vm.state;

import io.jrunc.spec.JsonTree;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads pod.json and container.json field by field, as the records' own JSON is written (PodRecord's
 * config and vm fields unwrapped at its top level), from the small reader's tree ({@link JsonTree}).
 * Binding them with an ObjectMapper cost a cold JVM about 400 ms (its introspection of the records),
 * and jackson's streaming parser about 20 ms (the BigDecimal its base class initialises), which every
 * call paid as soon as a pod existed. Unknown fields are skipped and absent ones take the records'
 * defaults, as the mapper's binding does.
 */
final class StateFiles {
    private StateFiles() {
    }

    static PodRecord pod(byte[] json) throws IOException {
        Map<String, Object> o = object(json);
        PodRecord.Config config = new PodRecord.Config((int) number(o, "cpus"), number(o, "memoryBytes"), string(o, "hostname"),
                strings(o, "dns"), strings(o, "addHosts"), stringMap(o, "sysctls"), string(o, "kernel"), string(o, "initrd"),
                number(o, "swapBytes"), network(o.get("network")));
        PodRecord.Vm vm = new PodRecord.Vm(number(o, "qemuPid"), number(o, "qemuStartedAt"), string(o, "bootedDigest"),
                bool(o, "restored"));
        return new PodRecord(string(o, "name"), bool(o, "anonymous"), number(o, "createdAt"), config, vm, bool(o, "pooled"));
    }

    static ContainerRecord container(byte[] json) throws IOException {
        Map<String, Object> o = object(json);
        List<HostShare> shares = new ArrayList<>();
        if (o.get("shares") instanceof List<?> list) {
            for (Object s : list) {
                Map<String, Object> share = map(s, "shares");
                shares.add(new HostShare(string(share, "tag"), string(share, "hostPath"), string(share, "containerPath"),
                        bool(share, "readOnly")));
            }
        }
        return new ContainerRecord(string(o, "name"), string(o, "pod"), string(o, "bundle"), string(o, "serial"),
                strings(o, "args"), number(o, "createdAt"), string(o, "lastState"), (int) number(o, "exitCode"), shares,
                (int) number(o, "pid"));
    }

    private static PodRecord.Network network(Object value) throws IOException {
        if (value == null) {
            return null;
        }
        Map<String, Object> n = map(value, "network");
        return new PodRecord.Network(string(n, "mode"), strings(n, "publish"), strings(n, "dnsSearch"), strings(n, "dnsOptions"),
                string(n, "mac"), strings(n, "addresses"), string(n, "gateway"), (int) number(n, "mtu"));
    }

    private static Map<String, Object> object(byte[] json) throws IOException {
        Object value;
        try {
            value = JsonTree.parse(json);
        } catch (IllegalArgumentException e) {
            throw new IOException(e.getMessage());
        }
        return map(value, "the file");
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(Object value, String what) throws IOException {
        if (value instanceof Map<?, ?> m) {
            return (Map<String, Object>) m;
        }
        throw new IOException(what + ": not a JSON object");
    }

    private static String string(Map<String, Object> o, String field) throws IOException {
        Object v = o.get(field);
        if (v == null || v instanceof String) {
            return (String) v;
        }
        if (v instanceof Number || v instanceof Boolean) {
            return v.toString(); // the mapper's coercion of a scalar
        }
        throw new IOException(field + ": not a string");
    }

    // if/else rather than pattern switches: a pattern switch's bootstrap generates classes at its first
    // run, tens of ms of a cold JVM
    private static long number(Map<String, Object> o, String field) throws IOException {
        Object v = o.get(field);
        if (v == null) {
            return 0;
        }
        if (v instanceof Number n) {
            return n.longValue();
        }
        if (v instanceof String s) {
            try {
                return Long.parseLong(s.strip());
            } catch (NumberFormatException e) {
                throw new IOException(field + ": not a number");
            }
        }
        throw new IOException(field + ": not a number");
    }

    private static boolean bool(Map<String, Object> o, String field) throws IOException {
        Object v = o.get(field);
        if (v == null) {
            return false;
        }
        if (v instanceof Boolean b) {
            return b;
        }
        throw new IOException(field + ": not a boolean");
    }

    private static List<String> strings(Map<String, Object> o, String field) throws IOException {
        Object v = o.get(field);
        if (v == null) {
            return null;
        }
        if (!(v instanceof List<?> list)) {
            throw new IOException(field + ": not an array");
        }
        List<String> out = new ArrayList<>();
        for (Object e : list) {
            if (!(e instanceof String str)) {
                throw new IOException(field + ": not an array of strings");
            }
            out.add(str);
        }
        return out;
    }

    private static Map<String, String> stringMap(Map<String, Object> o, String field) throws IOException {
        Object v = o.get(field);
        if (v == null) {
            return null;
        }
        Map<String, String> out = new LinkedHashMap<>();
        for (Map.Entry<String, Object> e : map(v, field).entrySet()) {
            if (!(e.getValue() instanceof String s)) {
                throw new IOException(field + "." + e.getKey() + ": not a string");
            }
            out.put(e.getKey(), s);
        }
        return out;
    }
}
