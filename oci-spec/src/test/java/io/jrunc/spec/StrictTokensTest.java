package io.jrunc.spec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The strict tokenizer SpecReader tries first: it must read well-formed configs itself (or it saves
 * nothing) and to the same records as jackson's parser; whatever it declines goes to jackson, whose
 * outcome SpecReaderEquivalenceTest compares with databind's over thousands of documents.
 */
class StrictTokensTest {
    private static String fixture() throws Exception {
        return Files.readString(Path.of(StrictTokensTest.class.getResource("every-field.json").toURI()));
    }

    @Test
    void wellFormedConfigsAreReadWithoutJackson() throws Exception {
        for (String json : List.of(fixture(), Json.writeIndented(DefaultSpec.example(false), Json.SPEC_INDENT),
                Json.writeIndented(DefaultSpec.rootless(true, 1000, 1000), Json.SPEC_INDENT))) {
            Object jackson = SpecReader.readWithJackson(json, SpecReader.Kind.SPEC);
            assertEquals(jackson, SpecReader.readStrict(json, SpecReader.Kind.SPEC));
            assertEquals(jackson, SpecReader.readStrict(json.getBytes(StandardCharsets.UTF_8), SpecReader.Kind.SPEC));
        }
        String escapes = "{\"hostname\":\"a\\u00e9\\n\\t\\\"\\\\\\/\u2603\",\"ociVersion\":\"1.2.1\",\"annotations\":"
                + "{\"k\":\"v\",\"k\":\"last\"},\"linux\":{\"resources\":{\"memory\":{\"limit\":-1,\"swap\":9223372036854775807}}}}";
        assertEquals(SpecReader.readWithJackson(escapes, SpecReader.Kind.SPEC), SpecReader.readStrict(escapes, SpecReader.Kind.SPEC));
    }

    @Test
    void whatJacksonWouldWordIsDeclined() {
        for (String json : List.of("", " ", "{", "{}x", "{\"a\":01}", "{\"a\":1,}", "[1,]", "{\"a\" 1}", "{'a':1}",
                "{a:1}", "{\"a\":tru}", "{\"a\":NaN}", "{\"a\":-}", "{\"a\":1.}", "{\"a\":.5}", "{\"a\":\"\\x\"}",
                "{\"a\":\"\u0001\"}", "{\"a\":\"\\u12\"}", "/*c*/{}", "\uFEFF{}", "null",
                "{\"hostname\":1}", "{\"linux\":{\"resources\":{\"memory\":{\"swap\":9223372036854775808}}}}", "[" .repeat(600) + "]".repeat(600))) {
            assertThrows(Exception.class, () -> SpecReader.readStrict(json, SpecReader.Kind.SPEC), json);
        }
        byte[] badUtf8 = {'{', '"', 'a', '"', ':', '"', (byte) 0xC3, '"', '}'};
        assertThrows(Exception.class, () -> SpecReader.readStrict(badUtf8, SpecReader.Kind.SPEC));
        // an overlong NUL, a CESU-8 surrogate, a byte no UTF-8 has, and 0x80 up outside a string
        for (byte[] bad : List.of(new byte[] {(byte) 0xC0, (byte) 0x80}, new byte[] {(byte) 0xED, (byte) 0xA0, (byte) 0x80},
                new byte[] {(byte) 0xFF})) {
            byte[] inString = concat("{\"hostname\":\"a\\n".getBytes(StandardCharsets.UTF_8), bad, "\"}".getBytes(StandardCharsets.UTF_8));
            assertThrows(Exception.class, () -> SpecReader.readStrict(inString, SpecReader.Kind.SPEC));
            byte[] outside = concat("{\"hostname\":\"a\"".getBytes(StandardCharsets.UTF_8), bad, "}".getBytes(StandardCharsets.UTF_8));
            assertThrows(Exception.class, () -> SpecReader.readStrict(outside, SpecReader.Kind.SPEC));
        }
        // a lone surrogate does not survive UTF-8: jackson decides
        assertThrows(Exception.class, () -> SpecReader.readStrict("{\"hostname\":\"\uD800\"}", SpecReader.Kind.SPEC));
    }

    /** Strings are copied when ASCII and decoded when not, in the fast path and between escapes alike. */
    @Test
    void textBeyondAsciiReadsAsJacksonReadsIt() throws Exception {
        for (String value : List.of("é", "aéb", "☃\\né", "x\\t\uD83D\uDE00y\\u00e9é",
                "\\u2603", "é\\\"")) {
            String json = "{\"ociVersion\":\"1.2.1\",\"hostname\":\"" + value + "\",\"annotations\":{\"" + value + "\":\"1\"}}";
            byte[] utf8 = json.getBytes(StandardCharsets.UTF_8);
            assertEquals(SpecReader.readWithJackson(utf8, SpecReader.Kind.SPEC), SpecReader.readStrict(utf8, SpecReader.Kind.SPEC), value);
            assertEquals(SpecReader.readWithJackson(json, SpecReader.Kind.SPEC), SpecReader.readStrict(json, SpecReader.Kind.SPEC), value);
        }
    }

    private static byte[] concat(byte[]... parts) {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        for (byte[] part : parts) {
            out.writeBytes(part);
        }
        return out.toByteArray();
    }
}
