package io.jrunc.cli;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The workloads `make build` runs under -XX:AOTCacheOutput to produce jrunc's two AOT caches (JEP 483:
 * loaded and linked classes, with the training's method profiles). A JVM started with a cache loads
 * every class in it at start-up, used or not, so each kind of command gets a cache trained on its own
 * code paths and the launcher picks one by the command's name (docs/PERFORMANCE.md):
 *
 * <ul>
 *   <li>{@code create}: create, run, exec, the commands that make container processes (FFM, namespaces,
 *       mounts, cgroups, the spawn), trained on a busybox bundle;
 *   <li>{@code control}: every other command, trained on containers scripts/aot-train.sh creates first
 *       in another JVM, so that none of the creating code lands in this cache.
 * </ul>
 *
 * <p>Not a command: the launcher never runs it. Usage: {@code AotTraining create BUNDLE SHORT_BUNDLE SECCOMP_BUNDLE ROOT} or
 * {@code AotTraining control ROOT ID_CREATED ID_CREATED_2 ID_SHORT}, where the containers are created
 * (not started); the processes of BUNDLE and ID_CREATED, ID_CREATED_2 run until killed, those of
 * SHORT_BUNDLE and ID_SHORT end by themselves.
 */
public final class AotTraining {
    private AotTraining() {}

    /** One command line and the exit status it must give. */
    private record Step(int status, String... args) {}

    public static void main(String[] args) throws Exception {
        List<Step> steps = switch (args[0]) {
            case "create" -> create(args[1], args[2], args[3], args[4]);
            case "control" -> control(args[1], args[2], args[3], args[4]);
            default -> throw new IllegalArgumentException("AotTraining create|control ...");
        };
        int failures = 0;
        for (Step step : steps) {
            int status = Main.run(step.args());
            if (status != step.status()) {
                System.err.println("AOT training: " + String.join(" ", step.args()) + ": exit status " + status
                        + ", expected " + step.status());
                failures++;
            }
        }
        System.exit(failures == 0 ? 0 : 1);
    }

    private static List<Step> create(String bundle, String shortBundle, String seccompBundle, String root)
            throws Exception {
        String id = "aot-training-" + ProcessHandle.current().pid();
        Path pidFile = Path.of(root, id + ".pid");
        Files.createDirectories(Path.of(root));
        return List.of(
                new Step(0, "--root", root, "create", "--bundle", bundle, "--pid-file", pidFile.toString(), id),
                new Step(0, "--root", root, "start", id),
                new Step(0, "--root", root, "exec", id, "true"),
                new Step(0, "--root", root, "exec", "--detach", id, "true"),
                new Step(0, "--root", root, "delete", "--force", id),
                new Step(0, "--root", root, "--log-format", "json", "run", "--detach", "--bundle", bundle, id + "-d"),
                new Step(0, "--root", root, "delete", "--force", id + "-d"),
                new Step(1, "--root", root, "create", "--bundle", bundle + "/nope", id + "-bad"),
                // podman's default seccomp profile, as podman, containerd and Docker send one
                new Step(0, "--root", root, "create", "--bundle", seccompBundle, id + "-sc"),
                new Step(0, "--root", root, "exec", id + "-sc", "true"),
                new Step(0, "--root", root, "delete", "--force", id + "-sc"),
                // the foreground run most callers and the bench use, of a process that ends by itself
                new Step(0, "--root", root, "run", "--bundle", shortBundle, id + "-fg"),
                // the same with a user namespace (its holder, maps and host ids)
                new Step(0, "--root", root, "run", "--bundle", userNamespaceBundle(shortBundle), id + "-us"));
    }

    /**
     * A bundle beside {@code shortBundle} with its rootfs and config, plus a new user namespace mapping
     * 0 to 100000 (65536 ids). The config is edited as text: runc's spec layout, one member a line.
     */
    private static String userNamespaceBundle(String shortBundle) throws Exception {
        Path from = Path.of(shortBundle).toAbsolutePath();
        Path to = from.resolveSibling(from.getFileName() + "-userns");
        Files.createDirectories(to);
        String config = Files.readString(from.resolve("config.json"));
        String edited = config.replaceFirst("\"path\": \"rootfs\"", java.util.regex.Matcher.quoteReplacement("\"path\": \"" + from.resolve("rootfs") + "\""))
                .replaceFirst("\"namespaces\": \\[", "\"namespaces\": [{\"type\": \"user\"},")
                .replaceFirst("\"linux\": \\{", "\"linux\": {\"uidMappings\": [{\"containerID\": 0, \"hostID\": 100000,"
                        + " \"size\": 65536}], \"gidMappings\": [{\"containerID\": 0, \"hostID\": 100000, \"size\": 65536}],");
        if (edited.equals(config) || !edited.contains("uidMappings") || !edited.contains("\"type\": \"user\"")) {
            throw new IllegalStateException("cannot add a user namespace to " + from.resolve("config.json"));
        }
        Files.writeString(to.resolve("config.json"), edited);
        return to.toString();
    }

    private static List<Step> control(String root, String a, String b, String shortLived) {
        return List.of(
                new Step(0, "--root", root, "state", a),
                new Step(0, "--root", root, "list"),
                new Step(0, "--root", root, "list", "--format", "json"),
                new Step(0, "--root", root, "list", "-q"),
                new Step(0, "--root", root, "start", a),
                new Step(0, "--root", root, "pause", a),
                new Step(0, "--root", root, "state", a),
                new Step(0, "--root", root, "resume", a),
                new Step(0, "--root", root, "ps", "--format", "json", a),
                new Step(0, "--root", root, "update", "--pids-limit", "100", "--memory", "64m", a),
                new Step(0, "--root", root, "events", "--stats", a),
                new Step(0, "--root", root, "kill", a),
                new Step(0, "--root", root, "kill", "--all", a, "KILL"),
                new Step(0, "--root", root, "delete", "--force", a),
                new Step(0, "--root", root, "delete", b),
                new Step(0, "--root", root, "start", shortLived),
                new Step(0, "--root", root, "delete", "--force", shortLived),
                new Step(1, "--root", root, "state", a),
                new Step(1, "--root", root, "delete", a),
                new Step(0, "--root", root, "delete", "--force", a),
                new Step(0, "features"),
                new Step(0, "--version"),
                new Step(1, "--root", root, "kill", "--bogus", a));
    }
}
