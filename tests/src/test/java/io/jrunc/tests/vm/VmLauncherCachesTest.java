package io.jrunc.tests.vm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Which AOT cache build/bin/jrunc-vm starts each call's JVM with (the launcher's own choice, read from
 * its shell trace), and that the JVM can use the one for the calls that read files. No VM: a pod's
 * directory and its monitor.sock are all the launcher looks at.
 */
class VmLauncherCachesTest {
    static final Path LIB = JruncVm.BIN.getParent().resolveSibling("lib-vm");

    @TempDir
    Path work;

    @Test
    void callsThatReadFilesTakeTheirOwnCacheAndCallsThatAskAMonitorTakeTheReadOneWhenAMonitorIsThere() throws Exception {
        Path root = Files.createDirectories(work.resolve("root"));
        // an empty root: nothing can be asked of a monitor
        assertEquals("files", cache(root, "ls"));
        assertEquals("files", cache(root, "ls", "--format", "json"));
        assertEquals("files", cache(root, "inspect", "c1"));
        assertEquals("files", cache(root, "pod", "ls"));
        assertEquals("files", cache(root, "logs", "c1"));
        assertEquals("run", cache(root, "run", "--rm", "/nonexistent"));
        assertEquals("none", cache(root, "pod", "create", "--name", "bad/name"));
        assertEquals("run", cache(root, "pod", "start", "p1"));
        assertEquals("run", cache(root, "pod", "rm", "-f", "p1"));
        assertEquals("none", cache(root, "pod", "stop", "p1"));
        // a pod whose monitor does not run: still files only
        Path pod = Files.createDirectories(root.resolve("pods").resolve("p1"));
        assertEquals("files", cache(root, "ls"));
        assertEquals("files", cache(root, "pod", "inspect", "p1"));
        // a pod with a monitor: the calls that ask it for the guest's figures take the read cache; ls,
        // inspect, pod ls and logs read the records the monitor keeps
        Files.createFile(pod.resolve("monitor.sock"));
        assertEquals("files", cache(root, "ls"));
        assertEquals("files", cache(root, "ps"));
        assertEquals("files", cache(root, "inspect", "c1"));
        assertEquals("read", cache(root, "stats", "c1"));
        assertEquals("read", cache(root, "pod", "inspect", "p1"));
        assertEquals("files", cache(root, "pod", "ls"));
        assertEquals("files", cache(root, "logs", "c1"));
    }

    @Test
    void theJvmUsesTheCacheForTheCallsThatReadFiles() throws Exception {
        // -XX:AOTMode=on: a JVM that cannot map the cache (built for another class path or flags) exits
        // with an error instead of running without it, as the launcher's JVM would, silently
        Path root = Files.createDirectories(work.resolve("empty"));
        List<String> command = new ArrayList<>(execLine(root, "pod", "ls"));
        int cache = command.indexOf("-XX:AOTCache=" + LIB.toRealPath().resolve("jrunc-vm-files.aot"));
        assertTrue(cache > 0, command.toString());
        command.add(cache, "-XX:AOTMode=on");
        command.remove("-Xlog:disable");
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue(), out);
        assertTrue(out.startsWith("NAME"), out);
    }

    /** The cache the launcher picked: the part of jrunc-vm-PART.aot, or "none". */
    private String cache(Path root, String... args) throws Exception {
        for (String word : execLine(root, args)) {
            if (word.startsWith("-XX:AOTCache=")) {
                String name = Path.of(word.substring("-XX:AOTCache=".length())).getFileName().toString();
                assertTrue(name.startsWith("jrunc-vm-") && name.endsWith(".aot"), name);
                return name.substring("jrunc-vm-".length(), name.length() - ".aot".length());
            }
        }
        return "none";
    }

    /** The java command line the launcher execs for these arguments (its `sh -x` trace; the call runs). */
    private List<String> execLine(Path root, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("sh", "-x", JruncVm.BIN.toString(), "--root", root.toString()));
        command.addAll(List.of(args));
        Path trace = Files.createTempFile(work, "trace", ".txt");
        Process p = new ProcessBuilder(command).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .redirectError(trace.toFile()).redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null"))).start();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), String.join(" ", args));
        String exec = Files.readAllLines(trace).stream().filter(l -> l.startsWith("+ exec ")).findFirst()
                .orElseThrow(() -> new AssertionError("no exec in the launcher's trace for " + String.join(" ", args)));
        return List.of(exec.substring("+ exec ".length()).split(" "));
    }
}
