package io.jrunc.spec;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Collects validation problems in document order, with the checks every rule set needs. Each check
 * treats an absent (null) value as fine; "must be set" is asked for explicitly where the spec requires
 * a member and its absence has no safe meaning.
 */
final class Problems {

    static final long UINT32_MAX = 0xFFFF_FFFFL;
    static final long UINT16_MAX = 0xFFFF;

    private final List<SpecProblem> found = new ArrayList<>();

    void add(JsonPath path, String problem) {
        found.add(new SpecProblem(path.toString(), problem));
    }

    List<SpecProblem> found() {
        return List.copyOf(found);
    }

    /** A required member: null, or an empty string, is reported. Returns whether it is present. */
    boolean requireSet(JsonPath path, Object value) {
        if (value == null || (value instanceof String text && text.isEmpty())) {
            add(path, "must be set");
            return false;
        }
        return true;
    }

    void requireAbsolute(JsonPath path, String value) {
        if (value != null && !value.startsWith("/")) {
            add(path, "must be an absolute path");
        }
    }

    /** A required absolute path: reports "must be set" or "must be an absolute path". */
    void requireAbsolutePath(JsonPath path, String value) {
        if (requireSet(path, value)) {
            requireAbsolute(path, value);
        }
    }

    void range(JsonPath path, Number value, long min, long max) {
        if (value != null && (value.longValue() < min || value.longValue() > max)) {
            add(path, "must be between " + min + " and " + max);
        }
    }

    void uint32(JsonPath path, Long value) {
        range(path, value, 0, UINT32_MAX);
    }

    void uint16(JsonPath path, Integer value) {
        range(path, value, 0, UINT16_MAX);
    }

    void notNegative(JsonPath path, Number value) {
        if (value != null && value.longValue() < 0) {
            add(path, "must not be negative");
        }
    }

    /** A value from a closed list; {@code what} names the list in the message, e.g. "namespace type". */
    void known(JsonPath path, String value, Set<String> allowed, String what) {
        if (value != null && !value.isEmpty() && !allowed.contains(value)) {
            add(path, "unknown " + what + " \"" + value + "\"");
        }
    }

    /** As {@link #known}, but the member is required. */
    void requireKnown(JsonPath path, String value, Set<String> allowed, String what) {
        if (requireSet(path, value)) {
            known(path, value, allowed, what);
        }
    }

    void eachKnown(JsonPath path, List<String> values, Set<String> allowed, String what) {
        if (values != null) {
            for (int i = 0; i < values.size(); i++) {
                known(path.index(i), values.get(i), allowed, what);
            }
        }
    }

    /** cpuset-style lists ("0-3,7") used for CPUs and memory nodes. */
    void cpuList(JsonPath path, String value, String what) {
        if (value != null && !value.isEmpty() && !CpuList.isValid(value)) {
            add(path, "invalid " + what + " list \"" + value + "\"");
        }
    }
}
