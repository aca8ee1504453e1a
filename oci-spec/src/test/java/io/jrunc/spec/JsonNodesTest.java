package io.jrunc.spec;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * JsonNodes against the ObjectMapper it stands in for (a default mapper's readTree and
 * writeValueAsBytes): the same tree, node types included, and the same bytes written.
 */
class JsonNodesTest {
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private static final List<String> DOCUMENTS = List.of(
            Fixtures.text("every-field.json"),
            "{}", "[]", "null", "true", "\"text\"", "7",
            "{\"a\": [1, -2, 2147483648, -9223372036854775808, 18446744073709551616, 1.5, -0.25e-3, 1E400]}",
            "{\"s\": \"quote \\\" backslash \\\\ tab \\t nl \\n ctl \\u0001 uni \\u00e9 \u20ac <&> \\ud83d\\ude00\"}",
            "{\"nested\": {\"x\": [[], [{}], [null, false, true]], \"empty\": \"\"}}",
            "{\"dup\": 1, \"dup\": [2]}",
            "  {\"a\": 1}  trailing");

    @Test
    void readsTheTreeTheMapperReads() throws IOException {
        for (String doc : DOCUMENTS) {
            byte[] bytes = doc.getBytes(StandardCharsets.UTF_8);
            JsonNode ours = JsonNodes.read(bytes);
            JsonNode theirs = MAPPER.readTree(bytes);
            assertEquals(theirs, ours, doc);
            assertEquals(types(theirs), types(ours), "node types of " + doc);
        }
        assertTrue(JsonNodes.read(new byte[0]).isMissingNode(), "an empty document, as readTree gives");
    }

    /**
     * A document of integers, strings and literals is read without jackson's parser (whose base class
     * initializes BigDecimal), into the mapper's tree; one with a fraction or an exponent, or not JSON,
     * is left to the parser.
     */
    @Test
    void wellFormedDocumentsWithoutFractionsNeedNoParser() throws IOException {
        for (String doc : DOCUMENTS) {
            byte[] bytes = doc.getBytes(StandardCharsets.UTF_8);
            JsonNode strict = JsonNodes.readStrict(bytes);
            if (doc.contains("1.5")) {
                assertNull(strict, doc);
            } else {
                assertEquals(MAPPER.readTree(bytes), strict, doc);
                assertEquals(types(MAPPER.readTree(bytes)), types(strict), "node types of " + doc);
            }
        }
        String integers = "{\"int\": -2147483648, \"long\": 2147483648, \"big\": 9223372036854775808, \"zero\": -0}";
        assertEquals(types(MAPPER.readTree(integers)), types(JsonNodes.readStrict(integers.getBytes(StandardCharsets.UTF_8))));
        for (String declined : List.of("", "{", "{\"a\": 1e3}", "\ufeff{}")) {
            assertNull(JsonNodes.readStrict(declined.getBytes(StandardCharsets.UTF_8)), declined);
        }
    }

    @Test
    void writesTheBytesTheMapperWrites() throws IOException {
        for (String doc : DOCUMENTS) {
            JsonNode tree = MAPPER.readTree(doc);
            assertArrayEquals(MAPPER.writeValueAsBytes(tree), JsonNodes.write(tree), doc);
        }
    }

    @Test
    void notJsonFailsWithTheParsersMessage() {
        for (String bad : List.of("{", "{\"a\": }", "[1, 2", "nope", "{\"a\" 1}")) {
            byte[] bytes = bad.getBytes(StandardCharsets.UTF_8);
            JsonProcessingException ours = assertThrows(JsonProcessingException.class, () -> JsonNodes.read(bytes), bad);
            JsonProcessingException theirs = assertThrows(JsonProcessingException.class, () -> MAPPER.readTree(bytes), bad);
            assertEquals(firstLine(theirs), firstLine(ours), bad);
        }
    }

    private static String firstLine(JsonProcessingException e) {
        return e.getOriginalMessage().lines().findFirst().orElse("");
    }

    /** Every node's type and number type, depth first. */
    private static String types(JsonNode node) {
        StringBuilder out = new StringBuilder(node.getNodeType().name());
        if (node.isNumber()) {
            out.append(':').append(node.numberType());
        }
        node.forEach(child -> out.append('(').append(types(child)).append(')'));
        return out.toString();
    }
}
