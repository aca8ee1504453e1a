package io.jrunc.tests;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Nothing a user types crashes jrunc: every failure is one error line in runc's shape, with
 * a non-zero exit, never a Java stack trace or an OutOfMemoryError, and nothing is left behind.
 */
@ExtendWith(JruncExtension.class)
class HostileInputTest {
    static final String LONG_ID = "x".repeat(300);

    /** A JVM's crash signature in a stream: a stack frame, an uncaught exception, a Java class name. */
    static void noStackTrace(Result r) {
        for (String stream : List.of(r.stdout(), r.stderr())) {
            assertFalse(stream.contains("\tat ") || stream.contains("Exception in thread")
                    || stream.matches("(?s).*\\bjava\\.[a-z]+\\.[A-Z].*") || stream.contains("OutOfMemoryError"),
                    r.describe("a stack trace or a Java class name"));
        }
    }

    @Test
    void everyCommandAnswersHostileArgumentsWithOneErrorLine(Sandbox sb) throws Exception {
        Bundle b = sb.bundle().args("true");
        Path missing = sb.file("no/such/dir");
        List<List<String>> calls = new ArrayList<>();
        for (String cmd : List.of("create", "run")) {
            calls.add(List.of(cmd, "--bundle", b.dir().toString(), LONG_ID));
            calls.add(List.of(cmd, "--bundle", b.dir().toString(), "a/b"));
            calls.add(List.of(cmd, "--bundle", b.dir().toString(), ".."));
            calls.add(List.of(cmd, "--bundle", b.dir().toString(), ""));
            calls.add(List.of(cmd, "--bundle", missing.toString(), sb.id("h")));
            calls.add(List.of(cmd, "--bundle", b.dir().toString(), "--pid-file", missing.resolve("pid").toString(), sb.id("h")));
            calls.add(List.of(cmd, "--bundle", b.dir().toString(), "--console-socket", missing.toString(), sb.id("h")));
            calls.add(List.of(cmd, "--bundle", b.dir().toString(), "--preserve-fds", "-1", sb.id("h")));
            calls.add(List.of(cmd, "--bundle", b.dir().toString(), "--preserve-fds", "99999999999999999999", sb.id("h")));
        }
        for (String cmd : List.of("start", "state", "kill", "delete", "pause", "resume", "ps", "events", "update", "exec")) {
            calls.add(List.of(cmd, LONG_ID));
            calls.add(List.of(cmd, "a/b"));
            calls.add(List.of(cmd, "no-such-container"));
        }
        calls.add(List.of("kill", "no-such-container", "SIGNOPE"));
        calls.add(List.of("kill", "no-such-container", "-5"));
        calls.add(List.of("update", "--memory", "-7", "no-such-container"));
        calls.add(List.of("update", "--memory", "lots", "no-such-container"));
        calls.add(List.of("update", "--resources", missing.toString(), "no-such-container"));
        calls.add(List.of("exec", "--process", missing.toString(), "no-such-container"));
        calls.add(List.of("exec", "--cwd", "rel", "no-such-container", "true"));
        calls.add(List.of("create", "--no-such-flag", "x"));
        calls.add(List.of("list", "--format", "yaml"));
        calls.add(List.of("spec", "--bundle", missing.toString()));
        calls.add(List.of("ps", "--format", "xml", "no-such-container"));
        calls.add(List.of("events", "--interval", "-1s", "no-such-container"));
        for (List<String> call : calls) {
            Result r = sb.jrunc().run(call.toArray(String[]::new));
            noStackTrace(r);
            assertTrue(r.exitCode() != 0, r.describe("a non-zero exit"));
        }
        Result longId = sb.jrunc().in(b.dir(), "create", LONG_ID).exit(1);
        assertTrue(longId.stderr().contains("invalid container ID format"), longId.describe("the id's rules"));
        assertEquals(List.of(), sb.leftovers());
    }

    /** A JSON log line too (what containerd and podman read), and the debug log holds the detail. */
    @Test
    void aFailureIsOneJsonLogLine(Sandbox sb) throws Exception {
        Path log = sb.file("log.json");
        Result r = sb.jrunc().withJsonLog(log).run("create", "--bundle", sb.bundle().dir().toString(), LONG_ID);
        noStackTrace(r);
        List<String> lines = Files.readAllLines(log);
        assertEquals(1, lines.size(), String.join("\n", lines));
        assertTrue(lines.getFirst().contains("\"level\":\"error\"") && lines.getFirst().contains("invalid container ID format"),
                lines.getFirst());
    }

    /**
     * A config past the documented 8 MiB is refused by its size before it is read; one under it that is
     * truncated or has a wrong type deep inside gets runc's kind of error, not an OutOfMemoryError in
     * the 64 MB heap. A valid config of nearly 8 MiB is run.
     */
    @Test
    void largeConfigsGetTheRightErrorNeverAnOutOfMemoryError(Sandbox sb) throws Exception {
        Bundle b = sb.bundle().args("true");
        String config = Files.readString(b.dir().resolve("config.json")).strip();
        assertTrue(config.startsWith("{") && !config.contains("\"annotations\""), config);
        // annotations first, then the config's members: 50 MB or ~8 MB of them, cut off in the middle,
        // with a number where a string belongs (the last one), or valid
        record Case(long bytes, String shape, String expected) {}
        List<Case> cases = List.of(
                new Case(50_000_000, "truncated", "bytes, larger than the 8388608 bytes (8 MiB) jrunc reads"),
                new Case(50_000_000, "number", "bytes, larger than the 8388608 bytes (8 MiB) jrunc reads"),
                new Case(8_000_000, "truncated", "Unexpected end-of-input"),
                new Case(8_000_000, "number", "expected string, got integer"),
                new Case(8_000_000, "valid", null));
        for (Case c : cases) {
            int entries = (int) (c.bytes() / 100);
            write(b.dir().resolve("config.json"), w -> {
                try {
                    w.write("{\"annotations\":{");
                    for (int i = 0; i < entries; i++) {
                        w.write("\"org.example.k" + i + "\":\"" + "v".repeat(70) + "\",");
                    }
                    if (c.shape().equals("truncated")) {
                        return;
                    }
                    w.write(c.shape().equals("number") ? "\"org.example.last\":5}," : "\"org.example.last\":\"v\"},");
                    w.write(config, 1, config.length() - 1);
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            });
            Result r = sb.jrunc().in(b.dir(), "run", sb.id("big"));
            noStackTrace(r);
            if (c.expected() == null) {
                r.ok();
            } else {
                r.exit(1);
                assertAll(() -> assertTrue(r.stderr().contains(c.expected()), r.describe(c.expected())),
                        () -> assertEquals(1, r.stderr().strip().lines().count(), r.describe("one line")));
            }
        }
        assertEquals(List.of(), sb.leftovers());
    }

    /** ociVersion MUST be SemVer (the runtime-spec); runc takes garbage, jrunc names the field. */
    @Test
    void ociVersionMustBeSemVerOfASupportedMajor(Sandbox sb) throws Exception {
        for (String version : List.of("garbage", "2.0.0")) {
            Bundle b = sb.bundle().args("true");
            b.config().put("ociVersion", version);
            b.write();
            Result r = sb.jrunc().in(b.dir(), "run", sb.id("ver")).exit(1);
            noStackTrace(r);
            assertTrue(r.stderr().contains("ociVersion: "), r.describe("names the field"));
        }
        assertEquals(List.of(), sb.leftovers());
    }

    private static void write(Path file, Consumer<Writer> body) throws IOException {
        try (Writer w = Files.newBufferedWriter(file)) {
            body.accept(w);
        }
    }
}
