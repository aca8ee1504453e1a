package io.jrunc.tests;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.jrunc.spec.DefaultSpec;
import io.jrunc.spec.Json;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * A bundle in a temp directory: a rootfs made from the host's busybox-static (the binary plus one
 * symlink per applet in /bin) and a config.json that starts as {@code runc spec}'s (from
 * {@link DefaultSpec}) with a non-terminal, writable root. Every setter rewrites config.json, so the
 * file on disk is always what the test last said.
 */
public final class Bundle {
    static final Path BUSYBOX = Path.of("/bin/busybox");
    private static volatile List<String> applets;

    private final Path dir;
    private final ObjectNode config;

    Bundle(Path dir) {
        this.dir = dir;
        try {
            Path bin = Files.createDirectories(rootfs().resolve("bin"));
            for (String d : List.of("etc", "proc", "sys", "dev", "tmp")) {
                Files.createDirectories(rootfs().resolve(d));
            }
            Files.copy(BUSYBOX, bin.resolve("busybox"), StandardCopyOption.COPY_ATTRIBUTES);
            for (String applet : applets()) {
                if (!applet.equals("busybox")) {
                    Files.createSymbolicLink(bin.resolve(applet), Path.of("busybox"));
                }
            }
            config = (ObjectNode) Jrunc.JSON.readTree(Json.write(DefaultSpec.forThisHost(false)));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        process().put("terminal", false);
        ((ObjectNode) config.get("root")).put("readonly", false);
        write();
    }

    private static List<String> applets() throws IOException {
        if (applets == null) {
            if (!Files.isExecutable(BUSYBOX)) {
                throw new IllegalStateException(BUSYBOX + " is missing: apt-get install -y busybox-static");
            }
            try {
                Process p = new ProcessBuilder(BUSYBOX.toString(), "--list").redirectErrorStream(true).start();
                String out = new String(p.getInputStream().readAllBytes());
                p.waitFor();
                applets = out.lines().filter(s -> !s.isBlank()).toList();
            } catch (InterruptedException e) {
                throw new IOException(e);
            }
        }
        return applets;
    }

    public Path dir() {
        return dir;
    }

    public Path rootfs() {
        return dir.resolve("rootfs");
    }

    /** The whole config, for edits without a helper; call {@link #write} afterwards. */
    public ObjectNode config() {
        return config;
    }

    public ObjectNode process() {
        return (ObjectNode) config.get("process");
    }

    private ObjectNode linux() {
        return config.withObjectProperty("linux");
    }

    public Bundle args(String... args) {
        process().set("args", strings(List.of(args)));
        return write();
    }

    /** The process is {@code sh -c script}. */
    public Bundle sh(String script) {
        return args("sh", "-c", script);
    }

    public Bundle env(String... env) {
        process().set("env", strings(List.of(env)));
        return write();
    }

    public Bundle cwd(String cwd) {
        process().put("cwd", cwd);
        return write();
    }

    public Bundle hostname(String hostname) {
        config.put("hostname", hostname);
        return write();
    }

    public Bundle terminal(boolean terminal) {
        process().put("terminal", terminal);
        return write();
    }

    public Bundle user(long uid, long gid, long... additionalGids) {
        ObjectNode user = process().putObject("user");
        user.put("uid", uid);
        user.put("gid", gid);
        if (additionalGids.length > 0) {
            ArrayNode gids = user.putArray("additionalGids");
            for (long g : additionalGids) {
                gids.add(g);
            }
        }
        return write();
    }

    public Bundle noNewPrivileges(boolean value) {
        process().put("noNewPrivileges", value);
        return write();
    }

    /** Sets all five capability sets (an empty collection leaves that set out). */
    public Bundle capabilities(Collection<String> bounding, Collection<String> effective,
            Collection<String> permitted, Collection<String> inheritable, Collection<String> ambient) {
        ObjectNode caps = process().putObject("capabilities");
        caps.set("bounding", strings(bounding));
        caps.set("effective", strings(effective));
        caps.set("permitted", strings(permitted));
        caps.set("inheritable", strings(inheritable));
        caps.set("ambient", strings(ambient));
        return write();
    }

    /** Sets {@code linux.seccomp} (a copy of {@code profile}), or removes it for null. */
    public Bundle seccomp(JsonNode profile) {
        ObjectNode linux = config.withObjectProperty("linux");
        if (profile == null) {
            linux.remove("seccomp");
        } else {
            linux.set("seccomp", profile.deepCopy());
        }
        return write();
    }

    /**
     * A profile captured from a real client (seccomp/src/test/resources/profiles, README there):
     * {@code podman-default}, {@code containerd-default}.
     */
    public static JsonNode capturedProfile(String name) {
        Path file = Path.of(System.getProperty("user.dir")).getParent()
                .resolve("seccomp/src/test/resources/profiles/" + name + ".json");
        try {
            return Jrunc.JSON.readTree(Files.readString(file));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Replaces the rlimits with one {@code type} limit. */
    public Bundle rlimit(String type, long hard, long soft) {
        ArrayNode limits = process().putArray("rlimits");
        limits.addObject().put("type", type).put("hard", hard).put("soft", soft);
        return write();
    }

    public Bundle mount(String destination, String type, String source, String... options) {
        ObjectNode m = ((ArrayNode) config.get("mounts")).addObject();
        m.put("destination", destination);
        m.put("type", type);
        m.put("source", source);
        if (options.length > 0) {
            m.set("options", strings(List.of(options)));
        }
        return write();
    }

    public Bundle bind(Path source, String destination, String... options) {
        List<String> opts = new ArrayList<>(List.of("rbind"));
        opts.addAll(List.of(options));
        return mount(destination, "bind", source.toString(), opts.toArray(String[]::new));
    }

    /** A host directory of this bundle bind-mounted read-write at /shared, for files both sides see. */
    public Path shared() {
        Path shared = dir.resolve("shared");
        if (!Files.isDirectory(shared)) {
            try {
                Files.createDirectories(shared);
                Files.createDirectories(rootfs().resolve("shared"));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            bind(shared, "/shared");
        }
        return shared;
    }

    public Bundle addMaskedPath(String path) {
        linux().withArrayProperty("maskedPaths").add(path);
        return write();
    }

    public Bundle addReadonlyPath(String path) {
        linux().withArrayProperty("readonlyPaths").add(path);
        return write();
    }

    public List<String> maskedPaths() {
        List<String> paths = new ArrayList<>();
        linux().withArrayProperty("maskedPaths").forEach(n -> paths.add(n.asText()));
        return paths;
    }

    public List<String> readonlyPaths() {
        List<String> paths = new ArrayList<>();
        linux().withArrayProperty("readonlyPaths").forEach(n -> paths.add(n.asText()));
        return paths;
    }

    /** Adds a hook of {@code kind} (prestart, createRuntime, ...) running {@code path args...}. */
    public Bundle hook(String kind, Path path, Integer timeoutSeconds, String... args) {
        ArrayNode hooks = config.withObjectProperty("hooks").withArrayProperty(kind);
        ObjectNode hook = hooks.addObject();
        hook.put("path", path.toString());
        List<String> argv = new ArrayList<>(List.of(path.toString()));
        argv.addAll(List.of(args));
        hook.set("args", strings(argv));
        if (timeoutSeconds != null) {
            hook.put("timeout", timeoutSeconds);
        }
        return write();
    }

    public Bundle write() {
        try {
            Files.writeString(dir.resolve("config.json"), Jrunc.JSON.writerWithDefaultPrettyPrinter()
                    .writeValueAsString(config));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return this;
    }

    static ArrayNode strings(Collection<String> values) {
        ArrayNode a = Jrunc.JSON.createArrayNode();
        values.forEach(a::add);
        return a;
    }

    static List<String> list(JsonNode array) {
        List<String> out = new ArrayList<>();
        array.forEach(n -> out.add(n.asText()));
        return out;
    }
}
