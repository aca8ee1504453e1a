package io.jrunc.cgroups;

import java.nio.file.Path;
import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;

/**
 * Where a container's cgroup lives: what the runtime persists in its state file and gives to
 * {@link Cgroup#open} in a later process. Plain strings so any serializer (Jackson handles records)
 * writes it as {@code {"mode":"HYBRID","directories":{"":"/sys/fs/cgroup/unified/x","memory":...}}}.
 *
 * @param mode        the host's cgroup mode when the cgroup was created
 * @param directories hierarchy key ({@code memory}, {@code cpu,cpuacct}, {@code name=systemd}; {@code ""}
 *                    for cgroup v2) to the absolute directory of the cgroup in that hierarchy. One
 *                    entry per hierarchy, so co-mounted controllers share one entry (runc keeps one
 *                    per controller; both name the same directories). Empty for a rootless container
 *                    whose user may write no cgroup (it runs without one, as with runc).
 */
public record CgroupLocation(CgroupMode mode, Map<String, String> directories) {

    public CgroupLocation {
        if (mode == null) {
            throw new IllegalArgumentException("cgroup location without a mode");
        }
        if (directories == null) {
            throw new IllegalArgumentException("cgroup location without directories");
        }
        for (Map.Entry<String, String> entry : directories.entrySet()) {
            Path dir = Path.of(entry.getValue());
            if (!dir.isAbsolute() || !dir.normalize().toString().equals(entry.getValue()) || dir.getNameCount() == 0) {
                throw new IllegalArgumentException("cgroup directory is not a clean absolute path below /: " + entry);
            }
        }
        boolean hasV2 = directories.containsKey("");
        if (mode == CgroupMode.UNIFIED && !directories.isEmpty() && (directories.size() != 1 || !hasV2)) {
            throw new IllegalArgumentException("a unified cgroup has one directory, key \"\": " + directories);
        }
        if (mode == CgroupMode.LEGACY && hasV2) {
            throw new IllegalArgumentException("a legacy cgroup has no cgroup v2 directory: " + directories);
        }
        directories = Collections.unmodifiableMap(new TreeMap<>(directories));
    }

    static CgroupLocation of(CgroupMode mode, Map<String, Path> directories) {
        Map<String, String> strings = new TreeMap<>();
        directories.forEach((key, dir) -> strings.put(key, dir.toString()));
        return new CgroupLocation(mode, strings);
    }

    /** The directory in the hierarchy with this key, or null if the cgroup has none there. */
    public Path directory(String hierarchyKey) {
        String dir = directories.get(hierarchyKey);
        return dir == null ? null : Path.of(dir);
    }
}
