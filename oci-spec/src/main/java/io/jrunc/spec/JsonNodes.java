package io.jrunc.spec;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.MissingNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.util.Iterator;
import java.util.Map;

/**
 * A config as a tree of jackson's nodes, read with the spec library's strict tokenizer (jackson-core's
 * parser for what it declines) and written with jackson-core's generator: what an {@code ObjectMapper}'s
 * {@code readTree} and {@code writeValueAsBytes} give for a
 * tree, byte for byte, without the mapper, whose set-up (its serializer and deserializer lookups)
 * is most of the cost of a first call in a cold JVM, and several times that under emulation. For
 * code that edits a config it passes on (the guest agent's rewrite of a pod's container config).
 */
public final class JsonNodes {
    private static final JsonFactory FACTORY = new JsonFactory();
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private JsonNodes() {
    }

    /**
     * The document's value; a missing node for an empty document, as readTree gives. A repeated key
     * keeps its last value, content after the value is not read (readTree's defaults).
     *
     * @throws JsonParseException for text that is not JSON, with the parser's message and location
     */
    public static JsonNode read(byte[] json) throws IOException {
        JsonNode strict = readStrict(json);
        if (strict != null) {
            return strict;
        }
        try (JsonParser p = FACTORY.createParser(json)) {
            JsonToken t = p.nextToken();
            return t == null ? MissingNode.getInstance() : value(new Tokens.Jackson(p), t);
        }
    }

    /**
     * The document as {@link StrictTokens} reads it, or null when it declines (not JSON, a fraction or
     * an exponent, anything past its limits), and jackson's parser reads it or words the error. A
     * well-formed config never reaches jackson's parser, whose base class initializes BigDecimal: in
     * JDK 25 that squares its way to 5^65536, some 20 ms of a cold JVM and 0.35-0.6 s of a pod's
     * one vCPU under emulation (docs/PERFORMANCE.md).
     */
    static JsonNode readStrict(byte[] json) {
        try {
            StrictTokens p = StrictTokens.of(json);
            JsonToken t = p.nextToken();
            return t == null ? null : value(p, t);
        } catch (IOException | RuntimeException declined) {
            return null;
        }
    }

    private static JsonNode value(Tokens p, JsonToken t) throws IOException {
        return switch (t) {
            case START_OBJECT -> {
                ObjectNode o = NODES.objectNode();
                for (JsonToken k = p.nextToken(); k != JsonToken.END_OBJECT; k = p.nextToken()) {
                    String name = p.currentName();
                    o.set(name, value(p, p.nextToken()));
                }
                yield o;
            }
            case START_ARRAY -> {
                ArrayNode a = NODES.arrayNode();
                for (JsonToken e = p.nextToken(); e != JsonToken.END_ARRAY; e = p.nextToken()) {
                    a.add(value(p, e));
                }
                yield a;
            }
            case VALUE_STRING -> NODES.textNode(p.getText());
            case VALUE_TRUE -> NODES.booleanNode(true);
            case VALUE_FALSE -> NODES.booleanNode(false);
            case VALUE_NULL -> NODES.nullNode();
            case VALUE_NUMBER_INT -> {
                // the node type jackson's getNumberType gives: the smallest of int, long and BigInteger
                BigInteger v = p.getBigIntegerValue();
                yield v.bitLength() < Integer.SIZE ? NODES.numberNode(v.intValue())
                        : v.bitLength() < Long.SIZE ? NODES.numberNode(v.longValue()) : NODES.numberNode(v);
            }
            case VALUE_NUMBER_FLOAT -> NODES.numberNode(p.getDoubleValue());
            default -> throw new IOException("unexpected token " + t);
        };
    }

    /** The tree as compact UTF-8 JSON. */
    public static byte[] write(JsonNode node) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(1024);
        try (JsonGenerator g = FACTORY.createGenerator(out)) {
            write(g, node);
        } catch (IOException e) {
            throw new UncheckedIOException(e); // a byte array does not fail
        }
        return out.toByteArray();
    }

    /** Writes the tree with {@code g} (its pretty printer, if it has one, lays it out). */
    public static void write(JsonGenerator g, JsonNode node) throws IOException {
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
