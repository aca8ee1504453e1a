package io.jrunc.spec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.core.JsonPointer;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.provider.Arguments;

/**
 * {@link SpecReader} against the databind path ({@link Json#read}), which stays the reference: for every
 * document here both give equal records, or both fail with the same message, path and problems. The
 * documents are the fixtures, every parse-error and validation case of the other tests, and thousands of
 * generated variants of the fixture that set fields to values of every JSON type, repeat members, cut the
 * text short or drop stray characters into it. Each is read from text and from UTF-8 bytes, as Jackson
 * uses a different parser for each.
 */
class SpecReaderEquivalenceTest {

    private static final String EVERY_FIELD = Fixtures.text("every-field.json");
    private static final ObjectMapper PLAIN = new ObjectMapper();

    /** Stand-ins for a value: every JSON type, and numbers at each edge of int, long and uint64. */
    private static final List<String> REPLACEMENTS = List.of(
            "null", "\"\"", "\"x\"", "\"1\"", "\"a\\u00e9\\n\\\"<&>\"", "0", "-0", "-1", "1.5", "1.0", "1e3", "-1E-2",
            "2147483647", "2147483648", "-2147483648", "-2147483649", "4294967296",
            "9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809",
            "18446744073709551615", "18446744073709551616", "123456789012345678901234567890",
            "true", "false", "[]", "[null]", "[\"x\"]", "[1]", "[{}]", "[[]]", "{}", "{\"a\":null}", "{\"a\":\"x\"}",
            "{\"a\":1}", "{\"a\":{}}", "{\"a\":[]}");

    /** Characters dropped into the text to break it in every place: structure, strings, numbers, literals. */
    private static final String STRAY = "}],:\"\\x{[0-. \u00e9";

    @TempDir
    Path dir;

    @Test
    void fixturesReadToEqualRecords() throws Exception {
        List<String> documents = new ArrayList<>(List.of(
                EVERY_FIELD,
                Json.write(Json.read(EVERY_FIELD, Spec.class)),
                Json.writeIndented(DefaultSpec.example(false), Json.SPEC_INDENT),
                Json.writeIndented(DefaultSpec.example(true), Json.SPEC_INDENT),
                Json.writeIndented(DefaultSpec.rootless(true, 1000, 1000), Json.SPEC_INDENT),
                Json.writeIndented(DefaultSpec.forThisHost(false), Json.SPEC_INDENT),
                Json.writeIndented(DefaultSpec.forThisHost(true), Json.SPEC_INDENT)));
        RuncBinary.find().ifPresent(runc -> {
            for (List<String> flags : List.of(List.<String>of(), List.of("--rootless"))) {
                documents.add(runcSpec(runc, flags));
            }
        });
        for (String document : documents) {
            Spec spec = SpecReader.readSpec(document);
            assertEquals(Json.read(document, Spec.class), spec);
            assertEquals(spec, SpecReader.readSpec(document.getBytes(StandardCharsets.UTF_8)));
            assertEquals(SpecValidator.problems(Json.read(document, Spec.class)), SpecValidator.problems(spec));
        }
    }

    @Test
    void everyParseErrorOfTheLoaderTestsIsTheSame() {
        List<String> differences = new ArrayList<>();
        for (Arguments arguments : SpecLoaderTest.malformed().toList()) {
            String json = (String) arguments.get()[0];
            compare(json, Spec.class, differences);
            assertEquals(arguments.get()[1], outcome(() -> SpecReader.readSpec(json)).error());
        }
        assertEquals(List.of(), differences);
    }

    @Test
    void everyValidationCaseIsTheSame() throws Exception {
        for (Arguments arguments : SpecValidatorTest.cases().toList()) {
            @SuppressWarnings("unchecked")
            String json = Json.write(SpecValidatorTest.edited((List<String>) arguments.get()[1]));
            Spec reference = Json.read(json, Spec.class);
            Spec spec = SpecReader.readSpec(json);
            assertEquals(reference, spec);
            assertEquals(SpecValidator.problems(reference), SpecValidator.problems(spec));
            Files.writeString(dir.resolve(SpecLoader.CONFIG_FILE), json);
            SpecException expected = assertThrows(SpecException.class, () -> SpecValidator.validate(reference));
            SpecException thrown = assertThrows(SpecException.class, () -> SpecLoader.load(dir));
            assertEquals(expected.getMessage(), thrown.getMessage());
            assertEquals(expected.problems(), thrown.problems());
        }
    }

    @Test
    void loneProcessesAreTheSame() throws Exception {
        String process = PLAIN.writeValueAsString(Fixtures.tree(EVERY_FIELD).get("process"));
        Process read = SpecReader.readProcess(process);
        assertEquals(Json.read(process, Process.class), read);
        assertEquals(read, SpecReader.readProcess(process.getBytes(StandardCharsets.UTF_8)));
        List<String> differences = new ArrayList<>();
        for (String variant : variants(process, Process.class)) {
            compare(variant, Process.class, differences);
        }
        for (String json : List.of("{\"cwd\":\"/\",\"args\":[],\"user\":{\"uid\":-1}}", "[]", "", "null", "{}")) {
            compare(json, Process.class, differences);
        }
        assertEquals(List.of(), differences);
        Path file = dir.resolve("process.json");
        Files.writeString(file, "{\"cwd\":\"/\",\"args\":[],\"user\":{\"uid\":-1}}");
        SpecException thrown = assertThrows(SpecException.class, () -> SpecLoader.loadProcess(file));
        assertEquals(List.of(new SpecProblem("user.uid", "must be between 0 and 4294967295"),
                new SpecProblem("args", "must not be empty")), thrown.problems());
    }

    @Test
    void resourcesDocumentsAreTheSame() throws Exception {
        String resources = PLAIN.writeValueAsString(Fixtures.tree(EVERY_FIELD).get("linux").get("resources"));
        assertEquals(Json.read(resources, LinuxResources.class), SpecReader.readResources(resources));
        List<String> differences = new ArrayList<>();
        for (String variant : variants(resources, LinuxResources.class)) {
            compare(variant, LinuxResources.class, differences);
        }
        assertEquals(List.of(), differences);
    }

    /** Every value of the fixture replaced by every kind of JSON value. */
    @Test
    void valuesOfEveryTypeEverywhereGiveTheSameRecordsAndMessages() throws Exception {
        List<String> differences = new ArrayList<>();
        int documents = 0;
        for (String variant : replacements(EVERY_FIELD)) {
            compare(variant, Spec.class, differences);
            documents++;
        }
        assertTrue(documents > 5000, "generated " + documents);
        assertEquals(List.of(), firstOf(differences));
    }

    /** The fixture cut short at every character, and with a stray character inserted at every position. */
    @Test
    void malformedTextGivesTheSameMessagesAndPaths() {
        List<String> differences = new ArrayList<>();
        for (int i = 0; i <= EVERY_FIELD.length(); i++) {
            compare(EVERY_FIELD.substring(0, i), Spec.class, differences);
            String stray = String.valueOf(STRAY.charAt(i % STRAY.length()));
            compare(EVERY_FIELD.substring(0, i) + stray + EVERY_FIELD.substring(i), Spec.class, differences);
        }
        String compact = Json.write(DefaultSpec.example(true));
        for (int i = 0; i <= compact.length(); i++) {
            char stray = STRAY.charAt((i * 5) % STRAY.length());
            compare(compact.substring(0, i) + stray + compact.substring(i), Spec.class, differences);
        }
        for (String json : List.of("{} {}", "{} x", "{}]", "null null", "null x", "{}\n\n  [", "\"x\"", "1", "true",
                "[]", " ", "\n", "{", "[", "{\"ociVersion\":\"1\",\"process\":{\"args\":[\"a\\q\"]}}",
                "{\"hostname\":\"\\ud800\"}", "{\"hostname\":\"tab\there\"}", "{\"a\":1,}", "{,}", "{\"a\" 1}",
                "{\"process\":{\"oomScoreAdj\":-}}", "{\"process\":{\"oomScoreAdj\":1.}}", "\ufeff{}")) {
            compare(json, Spec.class, differences);
        }
        assertEquals(List.of(), firstOf(differences));
    }

    /**
     * A repeated member keeps its last value, as in Go. Databind agrees until every component of the record
     * has been seen, and after that fails ("No fallback setter/field defined for creator property", or for
     * lists "Should never call `set()` on setterless property"); there
     * the reader must give what databind gives for the document without the earlier occurrence.
     */
    @Test
    void repeatedMembersKeepTheLastValue() throws Exception {
        List<String> differences = new ArrayList<>();
        JsonNode tree = Fixtures.tree(EVERY_FIELD);
        int databindFailures = 0;
        for (JsonPointer object : pointers(tree)) {
            if (!tree.at(object).isObject() || tree.at(object).isEmpty()) {
                continue;
            }
            String repeated = withFirstMemberRepeated(tree, object);
            Outcome reference = outcome(() -> Json.read(repeated, Spec.class));
            if (databindRefusesRepeat(reference)) {
                databindFailures++;
                Outcome ours = outcome(() -> SpecReader.readSpec(repeated));
                if (!ours.equals(outcome(() -> Json.read(EVERY_FIELD, Spec.class)))) {
                    differences.add(repeated + "\n  reader: " + ours);
                }
            } else {
                compare(repeated, Spec.class, differences);
            }
        }
        assertTrue(databindFailures > 0, "the databind quirk this test works around is gone; simplify the test");
        assertEquals(List.of(), firstOf(differences));

        assertEquals(2L, SpecReader.readSpec("{\"linux\":{\"resources\":{\"pids\":{\"limit\":1,\"limit\":2}}}}")
                .linux().resources().pids().limit());
        assertEquals(new LinuxNamespace("network", "/x"), SpecReader.readSpec(
                "{\"linux\":{\"namespaces\":[{\"type\":\"pid\",\"path\":\"/x\",\"type\":\"network\"}]}}")
                .linux().namespaces().getFirst());
        assertEquals(Map.of("k", "2", "j", "3"), SpecReader.readSpec(
                "{\"annotations\":{\"k\":\"1\",\"j\":\"3\",\"k\":\"2\"}}").annotations());
        assertEquals("process.terminal: expected boolean, got string", assertThrows(SpecException.class,
                () -> SpecReader.readSpec("{\"process\":{\"terminal\":\"x\",\"terminal\":true}}")).getMessage());
    }

    @Test
    void unsignedValuesKeepTheirBits() throws SpecException {
        Spec spec = SpecReader.readSpec("{\"process\":{\"rlimits\":[{\"type\":\"RLIMIT_CORE\","
                + "\"hard\":18446744073709551615,\"soft\":9223372036854775808}]}}");
        assertEquals(new POSIXRlimit("RLIMIT_CORE", -1L, Long.MIN_VALUE), spec.process().rlimits().getFirst());
    }

    // ---- generating documents ---------------------------------------------------------------------

    /** Replacements plus a repeated first member for every object, for documents smaller than config.json. */
    private static List<String> variants(String json, Class<?> type) throws Exception {
        List<String> variants = new ArrayList<>(replacements(json));
        JsonNode tree = Fixtures.tree(json);
        for (JsonPointer pointer : pointers(tree)) {
            if (tree.at(pointer).isObject() && !tree.at(pointer).isEmpty()) {
                String repeated = withFirstMemberRepeated(tree, pointer);
                if (!databindRefusesRepeat(outcome(() -> Json.read(repeated, type)))) {
                    variants.add(repeated);
                }
            }
        }
        return variants;
    }

    /** Databind's two messages for a member repeated after all components of its record were seen. */
    private static boolean databindRefusesRepeat(Outcome outcome) {
        return outcome.error() != null && (outcome.error().contains("No fallback setter/field defined")
                || outcome.error().contains("Should never call `set()` on setterless property"));
    }

    private static List<String> replacements(String json) throws Exception {
        JsonNode tree = Fixtures.tree(json);
        List<String> documents = new ArrayList<>();
        for (JsonPointer pointer : pointers(tree)) {
            if (pointer.matches()) {
                continue;
            }
            for (String replacement : REPLACEMENTS) {
                JsonNode copy = tree.deepCopy();
                JsonNode parent = copy.at(pointer.head());
                JsonNode value = Fixtures.tree(replacement);
                String last = pointer.last().getMatchingProperty();
                if (parent instanceof ArrayNode array) {
                    array.set(Integer.parseInt(last), value);
                } else {
                    ((ObjectNode) parent).set(last, value);
                }
                documents.add(PLAIN.writeValueAsString(copy));
            }
            // An unknown member next to every known one, holding a bit of everything.
            JsonNode copy = tree.deepCopy();
            if (copy.at(pointer.head()) instanceof ObjectNode parent) {
                parent.set("x-unknown", Fixtures.tree("{\"a\":[1,\"b\",null,{\"c\":true}],\"d\":1.5}"));
                documents.add(PLAIN.writeValueAsString(copy));
            }
        }
        return documents;
    }

    /** Every node's pointer, the root first. */
    private static List<JsonPointer> pointers(JsonNode tree) {
        List<JsonPointer> pointers = new ArrayList<>();
        collect(tree, JsonPointer.empty(), pointers);
        return pointers;
    }

    private static void collect(JsonNode node, JsonPointer at, List<JsonPointer> pointers) {
        pointers.add(at);
        if (node.isObject()) {
            for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> member = it.next();
                collect(member.getValue(), at.appendProperty(member.getKey()), pointers);
            }
        } else if (node.isArray()) {
            for (int i = 0; i < node.size(); i++) {
                collect(node.get(i), at.appendIndex(i), pointers);
            }
        }
    }

    /** The document as compact text, with the object at {@code target} repeating its first member last. */
    private static String withFirstMemberRepeated(JsonNode tree, JsonPointer target) throws Exception {
        StringBuilder out = new StringBuilder();
        write(tree, JsonPointer.empty(), target, out);
        return out.toString();
    }

    private static void write(JsonNode node, JsonPointer at, JsonPointer target, StringBuilder out)
            throws Exception {
        if (node.isObject()) {
            out.append('{');
            String separator = "";
            for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> member = it.next();
                out.append(separator).append(PLAIN.writeValueAsString(member.getKey())).append(':');
                write(member.getValue(), at.appendProperty(member.getKey()), target, out);
                separator = ",";
            }
            if (at.toString().equals(target.toString())) {
                Map.Entry<String, JsonNode> first = node.fields().next();
                out.append(',').append(PLAIN.writeValueAsString(first.getKey())).append(':')
                        .append(PLAIN.writeValueAsString(first.getValue()));
            }
            out.append('}');
        } else if (node.isArray()) {
            out.append('[');
            for (int i = 0; i < node.size(); i++) {
                out.append(i > 0 ? "," : "");
                write(node.get(i), at.appendIndex(i), target, out);
            }
            out.append(']');
        } else {
            out.append(PLAIN.writeValueAsString(node));
        }
    }

    private static String runcSpec(RuncBinary runc, List<String> flags) {
        try {
            Path bundle = Files.createTempDirectory("runc-spec");
            List<String> args = new ArrayList<>(List.of("spec", "--bundle", bundle.toString()));
            args.addAll(flags);
            runc.run(args, null);
            String text = Files.readString(bundle.resolve("config.json"));
            Files.delete(bundle.resolve("config.json"));
            Files.delete(bundle);
            return text;
        } catch (Exception e) {
            throw new AssertionError("runc spec " + flags, e);
        }
    }

    // ---- comparing ---------------------------------------------------------------------------------

    /** A record, or a failure's message and problems. */
    private record Outcome(Object value, String error, List<SpecProblem> problems) {
    }

    private interface Read {
        Object read() throws SpecException;
    }

    private static Outcome outcome(Read read) {
        try {
            return new Outcome(read.read(), null, null);
        } catch (SpecException e) {
            return new Outcome(null, e.getMessage(), e.problems());
        }
    }

    /** Reads {@code json} both ways, from text and from bytes, and notes any difference. */
    private static void compare(String json, Class<?> type, List<String> differences) {
        byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
        Function<Boolean, Read> reference = fromBytes -> () -> fromBytes
                ? Json.read(bytes, type) : Json.read(json, type);
        Function<Boolean, Read> reader = fromBytes -> () -> {
            if (type == Spec.class) {
                return fromBytes ? SpecReader.readSpec(bytes) : SpecReader.readSpec(json);
            }
            if (type == Process.class) {
                return fromBytes ? SpecReader.readProcess(bytes) : SpecReader.readProcess(json);
            }
            return fromBytes ? SpecReader.readResources(bytes) : SpecReader.readResources(json);
        };
        for (boolean fromBytes : new boolean[] {false, true}) {
            Outcome expected = outcome(reference.apply(fromBytes));
            Outcome actual = outcome(reader.apply(fromBytes));
            if (!Objects.equals(expected, actual)) {
                differences.add((fromBytes ? "bytes " : "text ") + json + "\n  databind: " + expected
                        + "\n  reader:   " + actual);
            }
        }
    }

    private static List<String> firstOf(List<String> differences) {
        return differences.size() <= 20 ? differences : differences.subList(0, 20);
    }
}
