package io.jrunc.spec;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Defensive copies for record components. Null stays null: an absent list or map is a different
 * document from an empty one, and round trips must not turn one into the other.
 */
final class Frozen {

    private Frozen() {
    }

    static <T> List<T> list(List<T> values) {
        return values == null ? null : List.copyOf(values);
    }

    /** Keeps insertion order (Map.copyOf would not), which makes debugging output follow the input. */
    static <V> Map<String, V> map(Map<String, V> entries) {
        if (entries == null) {
            return null;
        }
        // A plain loop, not forEach with a lambda: this runs while a config loads, in a fresh JVM where
        // the first lambda costs milliseconds of bootstrap.
        for (Map.Entry<String, V> entry : entries.entrySet()) {
            if (entry.getKey() == null || entry.getValue() == null) {
                throw new NullPointerException("map entries must not be null: " + entry);
            }
        }
        return Collections.unmodifiableMap(new LinkedHashMap<>(entries));
    }
}
