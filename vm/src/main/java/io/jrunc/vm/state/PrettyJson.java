package io.jrunc.vm.state;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.util.DefaultPrettyPrinter;
import com.fasterxml.jackson.databind.JsonNode;
import io.jrunc.spec.JsonNodes;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;

/**
 * The commands' JSON output and the state files: a tree written with jackson's generator and its
 * default pretty printer, byte for byte what an ObjectMapper with INDENT_OUTPUT writes of it, without
 * the mapper, whose set-up (its date format's locale data, its introspection of the records) cost a
 * cold JVM more than the rest of a read-only call, and some 60 ms of every call that writes a record.
 */
public final class PrettyJson {
    private static final JsonFactory FACTORY = new JsonFactory();

    private PrettyJson() {
    }

    public static String of(JsonNode node) {
        StringWriter out = new StringWriter();
        try (JsonGenerator g = FACTORY.createGenerator(out)) {
            g.setPrettyPrinter(new DefaultPrettyPrinter());
            JsonNodes.write(g, node);
        } catch (IOException e) {
            throw new UncheckedIOException(e); // a StringWriter does not fail
        }
        return out.toString();
    }
}
