package io.jrunc.vm.cli;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.util.DefaultPrettyPrinter;
import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.util.Iterator;
import java.util.Map;

/**
 * The commands' JSON output: a tree written with jackson's generator and its default pretty printer,
 * byte for byte what an ObjectMapper with INDENT_OUTPUT writes of it, without the mapper, whose set-up
 * cost a cold JVM more than the rest of a read-only call.
 */
final class PrettyJson {
    private static final JsonFactory FACTORY = new JsonFactory();

    private PrettyJson() {
    }

    static String of(JsonNode node) {
        StringWriter out = new StringWriter();
        try (JsonGenerator g = FACTORY.createGenerator(out)) {
            g.setPrettyPrinter(new DefaultPrettyPrinter());
            write(g, node);
        } catch (IOException e) {
            throw new UncheckedIOException(e); // a StringWriter does not fail
        }
        return out.toString();
    }

    private static void write(JsonGenerator g, JsonNode node) throws IOException {
        switch (node.getNodeType()) {
            case OBJECT -> {
                g.writeStartObject();
                for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
                    Map.Entry<String, JsonNode> e = it.next();
                    g.writeFieldName(e.getKey());
                    write(g, e.getValue());
                }
                g.writeEndObject();
            }
            case ARRAY -> {
                g.writeStartArray();
                for (JsonNode e : node) {
                    write(g, e);
                }
                g.writeEndArray();
            }
            case STRING -> g.writeString(node.textValue());
            case BOOLEAN -> g.writeBoolean(node.booleanValue());
            case NULL, MISSING -> g.writeNull();
            case NUMBER -> {
                switch (node.numberType()) {
                    case INT -> g.writeNumber(node.intValue());
                    case LONG -> g.writeNumber(node.longValue());
                    case BIG_INTEGER -> g.writeNumber(node.bigIntegerValue());
                    case FLOAT -> g.writeNumber(node.floatValue());
                    case DOUBLE -> g.writeNumber(node.doubleValue());
                    case BIG_DECIMAL -> g.writeNumber(node.decimalValue());
                }
            }
            default -> throw new IllegalArgumentException("no JSON for a " + node.getNodeType() + " node");
        }
    }
}
