package io.jrunc.shim;

import io.jrunc.spec.JsonTree;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * The {@code annotations} of a bundle's config.json, read with the small JSON reader of the state
 * files ({@link JsonTree}): {@code start} runs for every container containerd creates and needs
 * nothing else from the config, so it loads no JSON library (a cold JVM pays tens of milliseconds for
 * jackson's parser). The reader accepts exactly JSON; anything else, or an annotation that is not a
 * string, is an {@link IllegalArgumentException} saying what and where.
 */
public final class BundleAnnotations {
    private BundleAnnotations() {
    }

    /** The annotations of BUNDLE/config.json; empty when it has none. */
    public static Map<String, String> read(Path bundle) throws IOException {
        Path config = bundle.resolve("config.json");
        byte[] json;
        try {
            json = Files.readAllBytes(config);
        } catch (NoSuchFileException e) {
            throw new NoSuchFileException(config.toString(), null, "the bundle has no config.json");
        }
        return parse(json);
    }

    public static Map<String, String> parse(String json) {
        return parse(json.getBytes(StandardCharsets.UTF_8));
    }

    private static Map<String, String> parse(byte[] json) {
        Object document;
        try {
            document = JsonTree.parse(json);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("config.json: " + e.getMessage(), e);
        }
        if (!(document instanceof Map<?, ?> config)) {
            throw new IllegalArgumentException("config.json: not a JSON object");
        }
        Map<String, String> annotations = new HashMap<>();
        if (config.get("annotations") instanceof Map<?, ?> given) {
            for (Map.Entry<?, ?> e : given.entrySet()) {
                if (!(e.getValue() instanceof String value)) {
                    throw new IllegalArgumentException("config.json: annotation " + e.getKey() + " is not a string");
                }
                annotations.put((String) e.getKey(), value);
            }
        }
        return annotations;
    }
}
