package io.jrunc.tests.cgroups;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.jrunc.tests.Bundle;
import io.jrunc.tests.Host;
import io.jrunc.tests.Jrunc;
import io.jrunc.tests.Result;
import io.jrunc.tests.Sandbox;
import io.jrunc.tests.Wait;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** What the cgroup tests share: config edits, reading JSON, a call with stdin, /proc numbers. */
final class Support {
    private Support() {}

    static final ObjectMapper JSON = new ObjectMapper();
    static final long MIB = 1L << 20;

    static JsonNode json(String text) {
        try {
            return JSON.readTree(text);
        } catch (IOException e) {
            throw new AssertionError("not JSON: " + text, e);
        }
    }

    /** Merges {@code json} into linux.resources of the config, keeping what is there (the device rules). */
    static Bundle resources(Bundle b, String json) {
        ObjectNode resources = b.config().withObjectProperty("linux").withObjectProperty("resources");
        for (Iterator<Map.Entry<String, JsonNode>> it = json(json).fields(); it.hasNext(); ) {
            var e = it.next();
            resources.set(e.getKey(), e.getValue());
        }
        return b.write();
    }

    /** Adds {@code cap} to the bounding, effective and permitted sets the config already has. */
    static Bundle addCapability(Bundle b, String cap) {
        ObjectNode caps = (ObjectNode) b.process().get("capabilities");
        for (String set : List.of("bounding", "effective", "permitted")) {
            ArrayNode a = caps.withArrayProperty(set);
            a.add(cap);
        }
        return b.write();
    }

    /** runc's default spec's devices rule list starts with deny-all; the tests rely on it. */
    static void assertDenyAllFirst(Bundle b) {
        JsonNode first = b.config().at("/linux/resources/devices/0");
        if (!first.path("allow").isBoolean() || first.path("allow").asBoolean()
                || !"rwm".equals(first.path("access").asText())) {
            throw new AssertionError("expected runc's default deny-all device rule first, got " + first);
        }
    }

    static long pid(Path pidFile) {
        try {
            return Long.parseLong(Files.readString(pidFile).strip());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Runs {@code args} with {@code input} on stdin (Jrunc's own calls read /dev/null). */
    static Result withStdin(Sandbox sb, String input, String... args) {
        Jrunc j = sb.jrunc();
        List<String> cmd = j.command(args);
        try {
            Path in = Files.writeString(Files.createTempFile(sb.dir(), "stdin", ".json"), input);
            Path out = Files.createTempFile(sb.dir(), "stdout", ".txt");
            Path err = Files.createTempFile(sb.dir(), "stderr", ".txt");
            Process p = new ProcessBuilder(cmd).redirectInput(in.toFile()).redirectOutput(out.toFile())
                    .redirectError(err.toFile()).start();
            if (!p.waitFor(90, TimeUnit.SECONDS)) {
                p.destroyForcibly().waitFor();
                throw new AssertionError("timed out: " + String.join(" ", cmd));
            }
            return new Result(cmd, p.exitValue(), Files.readString(out), Files.readString(err));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    /** utime + stime of {@code pid} in clock ticks, from /proc/PID/stat. */
    static long cpuTicks(long pid) {
        String stat = Host.read(Path.of("/proc", Long.toString(pid), "stat"));
        if (stat == null) {
            throw new AssertionError("process " + pid + " is gone");
        }
        String[] f = Host.statFields(stat);
        return Long.parseLong(f[11]) + Long.parseLong(f[12]);
    }

    /** The State line of /proc/PID/status, e.g. "S (sleeping)". */
    static String state(long pid) {
        String status = Host.read(Path.of("/proc", Long.toString(pid), "status"));
        if (status == null) {
            return "gone";
        }
        return status.lines().filter(l -> l.startsWith("State:")).findFirst().orElse("State: ?")
                .substring("State:".length()).strip();
    }

    static String status(Sandbox sb, String id) {
        return sb.jrunc().state(id).get("status").asText();
    }

    static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    static void waitGone(List<Long> pids) {
        Wait.until(Duration.ofSeconds(20), "processes " + pids + " to end",
                () -> pids.stream().allMatch(Host::isZombieOrGone));
    }
}
