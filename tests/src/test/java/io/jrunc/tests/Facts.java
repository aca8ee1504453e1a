package io.jrunc.tests;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a container printed, one fact per line as {@code key value}: a script prefixes each line of
 * multi-line output (mountinfo, env) with its key.
 */
public final class Facts {
    private final String raw;
    private final Map<String, List<String>> facts = new LinkedHashMap<>();

    public Facts(String output) {
        this.raw = output;
        for (String line : output.lines().toList()) {
            int sp = line.indexOf(' ');
            String key = sp < 0 ? line : line.substring(0, sp);
            String value = sp < 0 ? "" : line.substring(sp + 1);
            facts.computeIfAbsent(key, k -> new ArrayList<>()).add(value);
        }
    }

    public List<String> all(String key) {
        return facts.getOrDefault(key, List.of());
    }

    /** The single value of {@code key}; fails if it is missing or repeated. */
    public String one(String key) {
        List<String> v = all(key);
        if (v.size() != 1) {
            throw new AssertionError("expected one '" + key + "' line, got " + v + " in:\n" + raw);
        }
        return v.getFirst();
    }

    /** The lines strictly between the line {@code begin} and the line {@code end}. */
    public List<String> between(String begin, String end) {
        List<String> lines = raw.lines().toList();
        int from = lines.indexOf(begin);
        int to = lines.indexOf(end);
        if (from < 0 || to < from) {
            throw new AssertionError("no " + begin + " ... " + end + " block in:\n" + raw);
        }
        return lines.subList(from + 1, to);
    }

    /** {@code status} lines as a map: CapEff -> 0000000000000020, NoNewPrivs -> 1, ... */
    public Map<String, String> status() {
        Map<String, String> m = new LinkedHashMap<>();
        for (String line : all("status")) {
            String[] kv = line.split(":\\s*", 2);
            m.put(kv[0], kv.length > 1 ? kv[1].strip() : "");
        }
        return m;
    }

    public String raw() {
        return raw;
    }

    @Override
    public String toString() {
        return raw;
    }
}
