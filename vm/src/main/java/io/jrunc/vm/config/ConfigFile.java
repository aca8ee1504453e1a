package io.jrunc.vm.config;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.toml.TomlMapper;
import io.jrunc.vm.Sizes;
import io.jrunc.vm.VmException;
import io.jrunc.vm.qemu.SwapDisk;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;

/**
 * jrunc-vm's configuration file (TOML): /etc/jrunc-vm/config.toml, or the file `--config` names.
 * Defaults for what the flags set, resolved as the flags are: the flag, then the file, then the
 * built-in value ({@link Defaults#BUILT_IN}).
 *
 * <pre>
 * [pod]
 * swap = "1g"          # the pod's swap area (0: none)
 * [container]
 * memory = "256m"      # a container's memory limit
 * cpus = 1.5           # its CPU limit
 * swap = "128m"        # its swap cap (swap alone, read against memory)
 * [pool]
 * size = 1             # anonymous pods kept booted for run and create without --pod (0: none)
 * </pre>
 *
 * Sizes are text as the flags take them ("512m") or a number of bytes. A file that does not parse, an
 * unknown table or key, or a bad value is one error naming the file and the key: a misspelt key silently
 * ignored would leave a limit unset.
 */
public final class ConfigFile {
    public static final Path DEFAULT = Path.of("/etc/jrunc-vm/config.toml");
    private static final Map<String, Set<String>> KEYS = Map.of(
            "pod", Set.of("swap"),
            "container", Set.of("memory", "cpus", "swap"),
            "pool", Set.of("size"));
    private static final String KNOWN = " (known: [pod] swap; [container] memory, cpus, swap; [pool] size)";
    /** The most pods a pool may keep booted: each is a VM of its own, holding its memory while it waits. */
    public static final int MAX_POOL_SIZE = 8;

    /**
     * What the file sets; an absent value is null (swap -1 would be ambiguous with a cap of 0).
     */
    public record Defaults(Long podSwapBytes, Long containerMemoryBytes, Double containerCpus, Long containerSwapBytes,
                           Integer poolSize) {
        public static final Defaults BUILT_IN = new Defaults(null, null, null, null, null);

        public Defaults(Long podSwapBytes, Long containerMemoryBytes, Double containerCpus, Long containerSwapBytes) {
            this(podSwapBytes, containerMemoryBytes, containerCpus, containerSwapBytes, null);
        }

        /** How many anonymous pods the warm pool keeps booted: the file's, else 0 (no pool). */
        public int pool() {
            return poolSize != null ? poolSize : 0;
        }

        /** The pod's swap area: the flag's, else the file's, else 0 (no area). */
        public long podSwap(Long flag) {
            return flag != null ? flag : podSwapBytes != null ? podSwapBytes : 0;
        }

        /** A container's memory limit: the flag's, else the file's, else 0 (the bundle's). */
        public long containerMemory(Long flag) {
            return flag != null ? flag : containerMemoryBytes != null ? containerMemoryBytes : 0;
        }

        public double containerCpus(Double flag) {
            return flag != null ? flag : containerCpus != null ? containerCpus : 0;
        }

        /** A container's swap cap: the flag's, else the file's, else -1 (no cap: the whole area). */
        public long containerSwap(Long flag) {
            return flag != null ? flag : containerSwapBytes != null ? containerSwapBytes : -1;
        }
    }

    private ConfigFile() {
    }

    /**
     * @param given the `--config` file (it must exist), or null for {@link #DEFAULT} when it exists
     */
    public static Defaults load(Path given) throws VmException {
        Path file = given != null ? given : DEFAULT;
        if (given == null && !Files.exists(file)) {
            return Defaults.BUILT_IN;
        }
        JsonNode tree;
        try {
            tree = new TomlMapper().readTree(Files.readString(file));
        } catch (IOException e) {
            String why = e.getMessage() == null ? e.toString() : e.getMessage().lines().findFirst().orElse("");
            throw new VmException("config file " + file + ": " + (e instanceof java.nio.file.NoSuchFileException
                    ? "does not exist" : "does not parse: " + why));
        }
        for (Map.Entry<String, JsonNode> t : tree.properties()) {
            Set<String> keys = KEYS.get(t.getKey());
            if (keys == null || !t.getValue().isObject()) {
                throw new VmException("config file " + file + ": unknown key " + t.getKey() + KNOWN);
            }
            for (Map.Entry<String, JsonNode> property : t.getValue().properties()) {
                String key = property.getKey();
                if (!keys.contains(key)) {
                    throw new VmException("config file " + file + ": unknown key " + t.getKey() + "." + key + KNOWN);
                }
            }
        }
        Long podSwap = size(file, tree, "pod", "swap");
        if (podSwap != null) {
            SwapDisk.require(podSwap, "pod.swap in " + file);
        }
        JsonNode cpus = tree.path("container").get("cpus");
        if (cpus != null && (!cpus.isNumber() || cpus.asDouble() <= 0)) {
            throw new VmException("config file " + file + ": container.cpus: expected a positive number, got " + cpus);
        }
        JsonNode pool = tree.path("pool").get("size");
        if (pool != null && (!pool.isIntegralNumber() || pool.asLong() < 0 || pool.asLong() > MAX_POOL_SIZE)) {
            throw new VmException("config file " + file + ": pool.size: expected a number of pods from 0 to " + MAX_POOL_SIZE
                    + ", got " + pool);
        }
        return new Defaults(podSwap, size(file, tree, "container", "memory"), cpus == null ? null : cpus.asDouble(),
                size(file, tree, "container", "swap"), pool == null ? null : pool.asInt());
    }

    private static Long size(Path file, JsonNode tree, String table, String key) throws VmException {
        JsonNode v = tree.path(table).get(key);
        if (v == null) {
            return null;
        }
        String what = "config file " + file + ": " + table + "." + key;
        if (v.isIntegralNumber() && v.asLong() >= 0) {
            return v.asLong();
        }
        if (v.isTextual()) {
            return Sizes.parse(v.asText(), what);
        }
        throw new VmException(what + ": expected a size such as \"512m\" or a number of bytes, got " + v);
    }
}
