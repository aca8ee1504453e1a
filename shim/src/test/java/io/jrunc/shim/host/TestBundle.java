package io.jrunc.shim.host;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.jrunc.bindings.FileDescriptors;
import io.jrunc.shim.TaskRequests;
import io.jrunc.spec.DefaultSpec;
import io.jrunc.spec.Json;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Map;

/**
 * A bundle as containerd hands one to a shim: config.json (runc spec's default, no terminal) and an
 * empty bundle/rootfs, with the busybox-static tree in a directory of its own that the create's
 * rootfs mount (a bind, as a snapshotter's is a bind or an overlay) puts in place; fifos for stdio.
 */
final class TestBundle {
    static final ObjectMapper JSON = new ObjectMapper();
    private static final Path BUSYBOX = Path.of("/bin/busybox");
    private static List<String> applets;

    final String id;
    final Path dir;
    final Path tree;
    final ObjectNode config;

    TestBundle(Path parent, String id) throws IOException {
        this.id = id;
        this.dir = Files.createDirectories(parent.resolve(id));
        this.tree = Files.createDirectories(parent.resolve(id + "-tree"));
        Path bin = Files.createDirectories(tree.resolve("bin"));
        for (String d : List.of("etc", "proc", "sys", "dev", "tmp")) {
            Files.createDirectories(tree.resolve(d));
        }
        Files.copy(BUSYBOX, bin.resolve("busybox"), StandardCopyOption.COPY_ATTRIBUTES);
        for (String applet : applets()) {
            if (!applet.equals("busybox")) {
                Files.createSymbolicLink(bin.resolve(applet), Path.of("busybox"));
            }
        }
        Files.createDirectories(dir.resolve("rootfs"));
        config = (ObjectNode) JSON.readTree(Json.write(DefaultSpec.forThisHost(false)));
        ((ObjectNode) config.get("process")).put("terminal", false);
        ((ObjectNode) config.get("root")).put("readonly", false);
        config.withObjectProperty("linux").put("cgroupsPath", cgroupsPath());
        write();
    }

    private static synchronized List<String> applets() throws IOException {
        if (applets == null) {
            Process p = new ProcessBuilder(BUSYBOX.toString(), "--list").redirectErrorStream(true).start();
            applets = new String(p.getInputStream().readAllBytes()).lines().filter(s -> !s.isBlank()).toList();
            try {
                p.waitFor();
            } catch (InterruptedException e) {
                throw new IOException(e);
            }
        }
        return applets;
    }

    String cgroupsPath() {
        return "/jrunc-shim-host-test/" + id;
    }

    TestBundle sh(String script) throws IOException {
        ArrayNode args = ((ObjectNode) config.get("process")).putArray("args");
        args.add("sh").add("-c").add(script);
        return write();
    }

    TestBundle terminal() throws IOException {
        ((ObjectNode) config.get("process")).put("terminal", true);
        return write();
    }

    /** The process shares the host's pid namespace (so it is not a PID 1 that ignores SIGTERM). */
    TestBundle hostPidNamespace() throws IOException {
        ArrayNode namespaces = (ArrayNode) config.get("linux").get("namespaces");
        for (int i = namespaces.size() - 1; i >= 0; i--) {
            if (namespaces.get(i).get("type").asText().equals("pid")) {
                namespaces.remove(i);
            }
        }
        return write();
    }

    TestBundle memoryLimit(long bytes) throws IOException {
        ObjectNode memory = config.withObjectProperty("linux").withObjectProperty("resources").withObjectProperty("memory");
        memory.put("limit", bytes);
        memory.put("swap", bytes);
        return write();
    }

    TestBundle write() throws IOException {
        Files.writeString(dir.resolve("config.json"), JSON.writeValueAsString(config));
        return this;
    }

    /** A fifo in the bundle directory, as containerd makes one per stream. */
    Path fifo(String name) {
        Path path = dir.resolve(name);
        FileDescriptors.mkfifo(path.toString(), 0600);
        return path;
    }

    TaskRequests.Mount bind() {
        return new TaskRequests.Mount("bind", tree.toString(), "", List.of("rbind", "rw"));
    }

    TaskRequests.Create create(String namespace, TaskRequests.Stdio stdio) {
        return new TaskRequests.Create(id, dir, namespace, List.of(bind()), stdio, Map.of());
    }
}
