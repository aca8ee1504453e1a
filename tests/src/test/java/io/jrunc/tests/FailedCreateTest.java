package io.jrunc.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** A create that fails exits 1 with a message naming the problem, and leaves nothing behind. */
@ExtendWith(JruncExtension.class)
class FailedCreateTest {

    @Test
    void failedCreatesLeaveNothingBehind(Sandbox sb) throws Exception {
        Bundle badJson = sb.bundle();
        Files.writeString(badJson.dir().resolve("config.json"), "{\"ociVersion\": \"1.2.0\", bad");
        Bundle noArgs = sb.bundle().args();
        Bundle noBinary = sb.bundle().args("nosuch-binary", "x");
        Path missing = sb.file("no-such-source");
        Bundle badMount = sb.bundle().args("true").bind(missing, "/data");
        Jrunc j = sb.jrunc();

        // containerd reads the last error line of the JSON log: check the message there
        List<Bundle> bundles = List.of(badJson, noArgs, noBinary, badMount);
        List<String> ids = List.of(sb.id("json"), sb.id("noargs"), sb.id("nobin"), sb.id("mount"));
        List<Result> results = Wait.parallel(
                () -> j.withJsonLog(log(sb, 0)).in(bundles.get(0).dir(), "create", ids.get(0)),
                () -> j.withJsonLog(log(sb, 1)).in(bundles.get(1).dir(), "create", ids.get(1)),
                () -> j.withJsonLog(log(sb, 2)).in(bundles.get(2).dir(), "create", ids.get(2)),
                () -> j.withJsonLog(log(sb, 3)).in(bundles.get(3).dir(), "create", ids.get(3)));
        results.forEach(r -> r.exit(1));

        assertMessage(results.get(0), log(sb, 0), "JSON");
        assertMessage(results.get(1), log(sb, 1), "process.args");
        assertMessage(results.get(2), log(sb, 2), "exec: \"nosuch-binary\": executable file not found in $PATH");
        assertMessage(results.get(3), log(sb, 3), "mounts[");
        assertMessage(results.get(3), log(sb, 3), missing.toString());
        assertEquals(List.of(), sb.leftovers());
        try (var entries = Files.list(j.root())) {
            assertEquals(List.of(), entries.toList(), "nothing under --root");
        } catch (java.nio.file.NoSuchFileException e) {
            // no root at all is fine too
        }
    }

    static Path log(Sandbox sb, int i) {
        return sb.file("log" + i + ".json");
    }

    /** Both stderr and the last {"level":"error"} line of the JSON log carry the message. */
    static void assertMessage(Result r, Path log, String part) throws Exception {
        assertTrue(r.stderr().contains(part), r.describe("stderr should contain '" + part + "'"));
        String last = null;
        for (String line : Files.readAllLines(log)) {
            JsonNode entry = Jrunc.JSON.readTree(line);
            if (entry.path("level").asText().equals("error")) {
                last = entry.path("msg").asText();
            }
        }
        assertTrue(last != null && last.contains(part), "last error in " + log + ": " + last + ", expected '"
                + part + "'");
    }
}
