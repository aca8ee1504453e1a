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
    }
}
