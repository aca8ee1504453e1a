package io.jrunc.tests.e2e;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Runs a client command (ctr, podman, script) to completion. Its stdout and stderr go to files and its
 * stdin comes from a file, never pipes: ctr's shim and podman's conmon outlive the command that started
 * them and would keep a pipe open, so reading to EOF would hang.
 */
final class Command {
    /** Generous: every runtime call costs a JVM start, and one client command makes several. */
    static final Duration TIMEOUT = Duration.ofSeconds(90);

    private static final AtomicInteger SEQ = new AtomicInteger();

    private final Path outputs;
    private final Map<String, String> env;

    Command(Path outputs, Map<String, String> env) {
        this.outputs = outputs;
        this.env = env;
    }

    record Result(List<String> command, int exitCode, String out, String err) {
        /** For assertion messages: the command line and everything it printed. */
        String describe() {
            return String.join(" ", command) + "\n  exit code: " + exitCode + "\n  stdout: " + out
                    + "\n  stderr: " + err;
        }
    }

    Result run(List<String> command) {
        return run(command, null);
    }

    /** Runs {@code command} with {@code stdin} (null: /dev/null) as its input. */
    Result run(List<String> command, String stdin) {
        int n = SEQ.incrementAndGet();
        Path out = outputs.resolve("cmd-" + n + ".out");
        Path err = outputs.resolve("cmd-" + n + ".err");
        try {
            Files.createDirectories(outputs);
            ProcessBuilder pb = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile());
            pb.environment().putAll(env);
            if (stdin == null) {
                pb.redirectInput(Path.of("/dev/null").toFile());
            } else {
                Path in = outputs.resolve("cmd-" + n + ".in");
                Files.writeString(in, stdin);
                pb.redirectInput(in.toFile());
            }
            Process p = pb.start();
            if (!p.waitFor(TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
                p.destroyForcibly();
                p.waitFor();
                throw new AssertionError("timed out after " + TIMEOUT + ": " + String.join(" ", command)
                        + "\n  stdout: " + read(out) + "\n  stderr: " + read(err));
            }
            return new Result(List.copyOf(command), p.exitValue(), read(out), read(err));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted: " + command, e);
        }
    }

    static List<String> list(List<String> prefix, String... args) {
        List<String> all = new ArrayList<>(prefix);
        all.addAll(List.of(args));
        return all;
    }

    static String read(Path file) {
        try {
            return Files.exists(file) ? Files.readString(file, StandardCharsets.UTF_8) : "";
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
