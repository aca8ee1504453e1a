package io.jrunc.spec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Loading: file handling, parse errors with JSON paths, and validation at the edge. */
class SpecLoaderTest {

    @TempDir
    Path bundle;

    @Test
    void loadsAndValidatesTheBundlesConfig() throws Exception {
        Spec written = DefaultSpec.example(true);
        Files.writeString(bundle.resolve("config.json"), Json.writeIndented(written, Json.SPEC_INDENT));

        assertEquals(written, SpecLoader.load(bundle));
    }

    @Test
    void aMissingConfigIsReportedInRuncsWords() {
        SpecException thrown = assertThrows(SpecException.class, () -> SpecLoader.load(bundle));

        assertEquals("JSON specification file config.json not found", thrown.getMessage());
        assertEquals("", thrown.path());
    }

    @Test
    void validationRunsAfterParsing() throws Exception {
        Files.writeString(bundle.resolve("config.json"),
                "{\"ociVersion\":\"1.2.1\",\"process\":{\"args\":[],\"cwd\":\"/\"},\"root\":{\"path\":\"rootfs\"}}");

        SpecException thrown = assertThrows(SpecException.class, () -> SpecLoader.load(bundle));

        assertEquals("process.args: must not be empty", thrown.getMessage());
    }

    @Test
    void loadsALoneProcessForExec() throws Exception {
        Path file = bundle.resolve("process.json");
        Files.writeString(file, "{\"args\":[\"ls\"],\"cwd\":\"tmp\"}");

        SpecException thrown = assertThrows(SpecException.class, () -> SpecLoader.loadProcess(file));

        assertEquals("cwd: must be an absolute path", thrown.getMessage());
        Files.writeString(file, "{\"args\":[\"ls\"],\"cwd\":\"/tmp\",\"terminal\":true}");
        assertEquals(true, SpecLoader.loadProcess(file).terminal());
    }

    static Stream<Arguments> malformed() {
        return Stream.of(
                Arguments.of("{\"ociVersion\":\"1\",\"process\":{\"args\":[\"a\",}}",
                        "process.args[1]: malformed JSON at line 1, column 42: Unexpected character ('}' (code 125)):"
                                + " expected a value"),
                Arguments.of("{\"ociVersion\":\"1\",\n\"root\":{\"path\":\"x\",\n\"readonly\":tru}}",
                        "root.readonly: malformed JSON at line 3, column 12: Unrecognized token 'tru': was expecting"
                                + " (JSON String, Number, Array, Object or token 'null', 'true' or 'false')"),
                Arguments.of("{\"ociVersion\":\"1\"", "malformed JSON at line 1, column 18: unexpected end of input"),
                Arguments.of("{\"process\":{\"args\":[\"a\"", "malformed JSON at line 1, column 24: unexpected end of input"),
                Arguments.of("{\"ociVersion\":\"1\"} {}", "unexpected content after the JSON document at line 1, column 20"),
                Arguments.of("", "no JSON content"),
                Arguments.of("null", "document is null, expected an object"),
                Arguments.of("[1]", "expected object, got array"),
                Arguments.of("{\"process\":{\"terminal\":\"yes\"}}", "process.terminal: expected boolean, got string"),
                Arguments.of("{\"process\":{\"terminal\":1}}", "process.terminal: expected boolean, got integer"),
                Arguments.of("{\"process\":{\"args\":[\"a\",1]}}", "process.args[1]: expected string, got integer"),
                Arguments.of("{\"process\":{\"args\":[\"a\",null]}}", "process.args[1]: must not be null"),
                Arguments.of("{\"process\":\"x\"}", "process: expected object, got string"),
                Arguments.of("{\"mounts\":{}}", "mounts: expected array, got object"),
                Arguments.of("{\"process\":{\"user\":{\"uid\":1e3}}}",
                        "process.user.uid: expected integer, got floating-point number"),
                Arguments.of("{\"process\":{\"oomScoreAdj\":99999999999}}",
                        "process.oomScoreAdj: must be between -2147483648 and 2147483647, got 99999999999"),
                Arguments.of("{\"process\":{\"rlimits\":[{\"type\":\"RLIMIT_CORE\",\"hard\":-1}]}}",
                        "process.rlimits[0].hard: must be between 0 and 18446744073709551615, got -1"),
                Arguments.of("{\"process\":{\"rlimits\":[{\"type\":\"RLIMIT_CORE\",\"soft\":18446744073709551616}]}}",
                        "process.rlimits[0].soft: must be between 0 and 18446744073709551615, got 18446744073709551616"),
                Arguments.of("{\"process\":{\"rlimits\":[{\"hard\":\"5\"}]}}",
                        "process.rlimits[0].hard: expected integer, got string"),
                Arguments.of("{\"linux\":{\"resources\":{\"memory\":{\"swap\":1.5}}}}",
                        "linux.resources.memory.swap: expected integer, got floating-point number"),
                Arguments.of("{\"linux\":{\"sysctl\":{\"net.ipv4.ip_forward\":1}}}",
                        "linux.sysctl[\"net.ipv4.ip_forward\"]: expected string, got integer"),
                Arguments.of("{\"linux\":{\"sysctl\":{\"kernel.shmmax\":null}}}",
                        "linux.sysctl[\"kernel.shmmax\"]: must not be null"),
                Arguments.of("{\"linux\":{\"namespaces\":[{\"type\":\"pid\"},{\"type\":true}]}}",
                        "linux.namespaces[1].type: expected string, got boolean"));
    }

    @ParameterizedTest(name = "{1}")
    @MethodSource("malformed")
    void parseErrorsNameTheJsonPathAndTheProblem(String json, String expected) {
        SpecException thrown = assertThrows(SpecException.class, () -> SpecLoader.parse(json));
        assertEquals(expected, thrown.getMessage());
    }
}
