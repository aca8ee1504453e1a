package io.jrunc.tests.vm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** build/bin/jrunc-vm driven as a user does, with its own --root. */
final class JruncVm {
    static final ObjectMapper JSON = new ObjectMapper();
    /** Beside build/bin/jrunc (system property jrunc.binary, set by `make test`). */
    static final Path BIN = Path.of(System.getProperty("jrunc.binary", "../build/bin/jrunc")).toAbsolutePath().normalize()
            .resolveSibling("jrunc-vm");

    record Result(int code, String out, String err) {
        String all() {
            return "exit " + code + "\nstdout: " + out + "\nstderr: " + err;
        }
    }

    private final Path root;
    private final Path work;

    JruncVm(Path work) {
        this.work = work;
        this.root = work.resolve("root");
    }

    Path root() {
        return root;
    }

    Result run(String... args) throws IOException, InterruptedException {
        return run(null, Map.of(), args);
    }

    /** The command line of a jrunc-vm call with this root. */
    List<String> command(String... args) {
        List<String> cmd = new ArrayList<>(List.of(BIN.toString(), "--root", root.toString()));
        cmd.addAll(List.of(args));
        return cmd;
    }

    /**
     * A jrunc-vm call with this root, ready to start: the image the tests checked for is the one
     * jrunc-vm boots ($JRUNC_VM_IMAGE, first in its search path).
     */
    ProcessBuilder builder(String... args) {
        ProcessBuilder pb = new ProcessBuilder(command(args));
        pb.environment().put("JRUNC_VM_IMAGE", VmHost.IMAGE.toString());
        return pb;
    }

    Result run(String stdin, Map<String, String> env, String... args) throws IOException, InterruptedException {
        ProcessBuilder pb = builder(args);
        pb.environment().putAll(env);
        Path out = Files.createTempFile(work, "out", ".txt");
        Path err = Files.createTempFile(work, "err", ".txt");
        pb.redirectOutput(out.toFile()).redirectError(err.toFile());
        if (stdin == null) {
            pb.redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
        }
        Process p = pb.start();
        if (stdin != null) {
            try (var in = p.getOutputStream()) {
                in.write(stdin.getBytes(StandardCharsets.UTF_8));
            }
        }
        assertTrue(p.waitFor(5, TimeUnit.MINUTES), "jrunc-vm " + String.join(" ", args) + " did not finish");
        Result result = new Result(p.exitValue(), Files.readString(out), Files.readString(err));
        if (result.err().contains("is not running") || result.err().contains("did not come up") || result.err().contains("did not answer")
                || result.err().contains("qemu exited")) {
            printVmLogs("jrunc-vm " + String.join(" ", args) + ": " + result.err().strip());
        }
        return result;
    }

    /**
     * The end of every pod's console.log and monitor.log: a VM that died under a test (a guest panic, a
     * killed qemu) or never came up says why there, and the root is gone once the class ends.
     */
    void printVmLogs(String why) {
        System.out.println("pod-vm logs after " + why + "\n" + vmLogs());
    }

    String vmLogs() {
        StringBuilder out = new StringBuilder();
        try (var pods = Files.list(root.resolve("pods"))) {
            for (Path pod : pods.sorted().toList()) {
                for (String log : List.of("console.log", "monitor.log")) {
                    Path file = pod.resolve(log);
                    if (Files.exists(file)) {
                        List<String> lines = Files.readAllLines(file, StandardCharsets.ISO_8859_1);
                        out.append("--- ").append(file).append(" (last 25 of ").append(lines.size()).append(" lines)\n");
                        lines.subList(Math.max(0, lines.size() - 25), lines.size()).forEach(l -> out.append(l).append('\n'));
                    }
                }
            }
        } catch (IOException e) {
            out.append("(cannot read the pods' logs: ").append(e.getMessage()).append(")\n");
        }
        return out.toString();
    }

    /** Starts jrunc-vm without waiting (its output discarded), for a call that blocks, as `run` does. */
    Process start(String... args) throws IOException {
        return builder(args).redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectError(ProcessBuilder.Redirect.DISCARD).start();
    }

    /**
     * A test class's end: every pod of this root removed with `pod rm -f` (its VM ended at once), then
     * the work directory, without following links (a shared directory may hold one to /).
     */
    void removePodsAndWork() throws Exception {
        if (Files.exists(root.resolve("pods"))) {
            for (JsonNode p : JSON.readTree(run("pod", "ls", "--format", "json").out())) {
                run("pod", "rm", "-f", p.path("name").asText());
            }
        }
        io.jrunc.bindings.FileTrees.delete(work);
    }

    Result ok(String... args) throws Exception {
        Result r = run(args);
        assertEquals(0, r.code(), () -> "jrunc-vm " + String.join(" ", args) + "\n" + r.all() + "\n" + vmLogs());
        return r;
    }

    JsonNode json(String... args) throws Exception {
        return JSON.readTree(ok(args).out());
    }
}
