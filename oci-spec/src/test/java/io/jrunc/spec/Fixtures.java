package io.jrunc.spec;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/** Test resources and JSON tree helpers. */
final class Fixtures {

    private Fixtures() {
    }

    static String text(String name) {
        try (InputStream in = Fixtures.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalArgumentException("no test resource " + name);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static JsonNode tree(String json) {
        try {
            return Json.reader().readTree(json);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
