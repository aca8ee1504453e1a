package io.jrunc.vm;

import com.fasterxml.jackson.databind.JsonNode;
import io.jrunc.spec.JsonNodes;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * An exec's environment as podman's exec makes it: the container's own (process.env of the spec the
 * guest received, the container's config.json) with each `-e` added, a name the container already has
 * taking the new value in its place. The agent takes a non-empty env as the whole environment, so the
 * merge is made here: without it `-e K=V` would drop the container's PATH and the rest.
 */
public final class ExecEnvironment {

    private ExecEnvironment() {
    }

    /**
     * The env to send: empty (the agent then gives the container's) when nothing is added.
     *
     * @param config the container's config.json
     * @param added  `-e` values: NAME=value, or NAME alone for the caller's own value (skipped when the
     *               caller has none, as podman does)
     * @param caller the caller's environment
     */
    public static List<String> of(Path config, List<String> added, Map<String, String> caller) throws VmException {
        if (added.isEmpty()) {
            return List.of();
        }
        Map<String, String> env = new LinkedHashMap<>();
        JsonNode own;
        try {
            own = JsonNodes.read(Files.readAllBytes(config)).path("process").path("env");
        } catch (IOException e) {
            throw new VmException("cannot read the container's environment from " + config + ": " + e.getMessage(), e);
        }
        own.forEach(e -> put(env, e.asText()));
        for (String e : added) {
            String name = e.contains("=") ? e.substring(0, e.indexOf('=')) : e;
            if (name.isEmpty()) {
                throw new VmException("invalid --env \"" + e + "\": expected NAME=value or NAME");
            }
            if (e.contains("=")) {
                put(env, e);
            } else if (caller.containsKey(name)) {
                put(env, name + "=" + caller.get(name));
            }
        }
        return new ArrayList<>(env.values());
    }

    private static void put(Map<String, String> env, String entry) {
        env.put(entry.contains("=") ? entry.substring(0, entry.indexOf('=')) : entry, entry);
    }
}
