package io.jrunc.tests;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Runs the runtime binary (jrunc by default; runc for comparisons) with a private {@code --root}.
 * Output goes to files, never pipes: a detached container inherits the runtime's stdout and would
 * otherwise hold a pipe open after the runtime exits.
 */
public final class Jrunc {
    static final ObjectMapper JSON = new ObjectMapper();
    static final Duration TIMEOUT = Duration.ofSeconds(90);

    private final Path binary;
    private final Path root;
    private final Path outputs;
    private final List<String> globalFlags;
    private final AtomicInteger calls;

    Jrunc(Path binary, Path root, Path outputs) {
        this(binary, root, outputs, List.of(), new AtomicInteger());
    }

    private Jrunc(Path binary, Path root, Path outputs, List<String> globalFlags, AtomicInteger calls) {
        this.binary = binary;
        this.root = root;
        this.outputs = outputs;
        this.globalFlags = globalFlags;
        this.calls = calls;
    }

    /** The binary under test: system property {@code jrunc.binary}, else ../build/bin/jrunc. */
    static Path defaultBinary() {
        return Path.of(System.getProperty("jrunc.binary", "../build/bin/jrunc")).toAbsolutePath().normalize();
    }

    public Path root() {
        return root;
    }

    public Path binary() {
        return binary;
    }

    /** The same runtime, logging to {@code log} as JSON lines (what containerd and podman ask for). */
    public Jrunc withJsonLog(Path log) {
        List<String> flags = new ArrayList<>(globalFlags);
        flags.addAll(List.of("--log", log.toString(), "--log-format", "json"));
        return new Jrunc(binary, root, outputs, flags, calls);
    }

    public List<String> command(String... args) {
        List<String> cmd = new ArrayList<>();
        cmd.add(binary.toString());
        cmd.add("--root");
        cmd.add(root.toString());
        cmd.addAll(globalFlags);
        cmd.addAll(List.of(args));
        return cmd;
    }

    /** Runs {@code args} in {@code dir} (the bundle, usually) and waits for it. */
    public Result in(Path dir, String... args) {
        return exec(command(args), dir);
    }

    public Result run(String... args) {
        return exec(command(args), null);
    }

    /**
     * Runs {@code args} with host file {@code file} open read-only as fd 3, which ProcessBuilder cannot
     * pass itself: a shell opens it and execs the runtime.
     */
    public Result withFd3(Path file, Path dir, String... args) {
        List<String> cmd = new ArrayList<>(List.of("/bin/sh", "-c", "exec 3<\"$0\"; exec \"$@\"", file.toString()));
        cmd.addAll(command(args));
        return exec(cmd, dir);
    }

    /** Starts {@code args} without waiting (a foreground {@code run} to signal, say). */
    public Background start(Path dir, String... args) {
        return startCommand(command(args), dir);
    }

    public JsonNode state(String id) {
        Result r = run("state", id).ok();
        try {
            return JSON.readTree(r.stdout());
        } catch (IOException e) {
            throw new AssertionError(r.describe("state is not JSON"), e);
        }
    }

    Result exec(List<String> cmd, Path dir) {
        Background b = startCommand(cmd, dir);
        return b.await(TIMEOUT);
    }

    Background startCommand(List<String> cmd, Path dir) {
        int n = calls.incrementAndGet();
        Path out = outputs.resolve("call-" + n + ".out");
        Path err = outputs.resolve("call-" + n + ".err");
        try {
            Files.createDirectories(outputs);
            ProcessBuilder pb = new ProcessBuilder(cmd)
                    .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                    .redirectOutput(out.toFile())
                    .redirectError(err.toFile());
            if (dir != null) {
                pb.directory(dir.toFile());
            }
            return new Background(cmd, pb.start(), out, err);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A started command; {@link #await} collects its result. */
    public static final class Background {
        private final List<String> command;
        private final Process process;
        private final Path out;
        private final Path err;

        Background(List<String> command, Process process, Path out, Path err) {
            this.command = command;
            this.process = process;
            this.out = out;
            this.err = err;
        }

        public Process process() {
            return process;
        }

        public String stdoutSoFar() {
            return read(out);
        }

        public Result await(Duration timeout) {
            try {
                if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                    process.destroyForcibly();
                    process.waitFor();
                    throw new AssertionError("timed out after " + timeout + ": " + String.join(" ", command)
                            + "\n--- stdout ---\n" + read(out) + "\n--- stderr ---\n" + read(err));
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted", e);
            }
            return new Result(command, process.exitValue(), read(out), read(err));
        }

        private static String read(Path p) {
            try {
                return Files.readString(p);
            } catch (IOException e) {
                return "";
            }
        }
    }
}
