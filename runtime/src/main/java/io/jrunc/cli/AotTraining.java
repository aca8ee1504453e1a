package io.jrunc.cli;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The workload `make build` runs once under -XX:AOTCacheOutput to produce build/lib/jrunc.aot, the
 * JDK's ahead-of-time cache of loaded and linked classes (JEP 483) that every later jrunc call maps
 * instead of loading, verifying and linking ~3000 classes again. It drives the same code paths as the
 * callers do (create, start, state, list, exec, kill, delete, run, features), in one JVM, against a
 * bundle given on the command line. Not a command: the launcher never runs it.
 *
 * <p>Usage: AotTraining BUNDLE STATE_ROOT
 */
public final class AotTraining {
    private AotTraining() {}

    public static void main(String[] args) throws Exception {
        String bundle = args[0];
        String root = args[1];
        String id = "aot-training-" + ProcessHandle.current().pid();
        Path pidFile = Path.of(root, id + ".pid");
        Files.createDirectories(Path.of(root));
        int failures = 0;
        failures += step("--root", root, "create", "--bundle", bundle, "--pid-file", pidFile.toString(), id);
        failures += step("--root", root, "state", id);
        failures += step("--root", root, "start", id);
        failures += step("--root", root, "list");
        failures += step("--root", root, "list", "--format", "json");
        failures += step("--root", root, "exec", id, "true");
        failures += step("--root", root, "ps", "--format", "json", id);
        failures += step("--root", root, "kill", id, "KILL");
        failures += step("--root", root, "delete", "--force", id);
        failures += step("--root", root, "state", id); // the "does not exist" path
        failures += step("--root", root, "--log-format", "json", "run", "--detach", "--bundle", bundle, id + "-run");
        failures += step("--root", root, "delete", "--force", id + "-run");
        failures += step("features");
        Files.deleteIfExists(pidFile);
        // "state" of a deleted container is meant to fail; anything else failing means a broken build.
        if (failures != 1) {
            System.err.println("AOT training: " + failures + " steps failed (1 expected)");
            System.exit(1);
        }
        System.exit(0);
    }

    private static int step(String... args) {
        return Main.run(args) == 0 ? 0 : 1;
    }
}
