package io.jrunc.cgroups;

import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A container's {@code linux.cgroupsPath} as runc's cgroupfs driver understands it, cleaned and
 * defaulted (runc {@code specconv.CreateCgroupConfig}, opencontainers/cgroups {@code path.Inner},
 * {@code fs.subsysPath}, {@code fs2.defaultDirPath}):
 * <ul>
 *   <li>empty: the container id, taken as a relative path;</li>
 *   <li>absolute: the same path below the root of every hierarchy;</li>
 *   <li>relative: below the cgroup the runtime itself is in, per hierarchy (on a unified host: below
 *       the parent of that cgroup, because the runtime's own cgroup holds processes and a cgroup
 *       v2 child of it could not get controllers; on a hybrid host the v2 hierarchy takes a relative
 *       path from its root, a runc quirk kept so both runtimes agree on where a container lives).</li>
 * </ul>
 * The path is cleaned lexically first ({@code ..} cannot climb above the starting point), as runc's
 * {@code LexicallyCleanPath} does.
 *
 * @param path lexically clean, absolute ({@code /a/b}) or relative ({@code a/b}); never the root or
 *             the starting point itself
 */
public record CgroupsPath(String path) {

    public CgroupsPath {
        if (path.isEmpty() || path.equals("/") || path.equals(".") || !lexicallyClean(path).equals(path)) {
            throw new IllegalArgumentException("not a usable, clean cgroups path: \"" + path + "\"");
        }
    }

    /**
     * The cgroupfs-driver path of a container.
     *
     * @param cgroupsPath {@code linux.cgroupsPath} of the config, null or empty when absent
     * @param containerId the container id, the default when cgroupsPath is absent
     */
    public static CgroupsPath of(String cgroupsPath, String containerId) throws CgroupException {
        return of(cgroupsPath, containerId, false);
    }

    /**
     * As {@link #of(String, String)}, honouring the runtime's {@code --systemd-cgroup} flag. The systemd
     * driver is not supported yet: with the flag this always fails, naming the unit runc would have
     * created, or with runc's own message when the path is not {@code slice:prefix:name}.
     */
    public static CgroupsPath of(String cgroupsPath, String containerId, boolean systemdCgroup) throws CgroupException {
        String raw = cgroupsPath == null ? "" : cgroupsPath;
        if (systemdCgroup) {
            throw systemdNotSupported(raw, containerId);
        }
        String cleaned = raw.isEmpty() ? lexicallyClean(containerId == null ? "" : containerId) : lexicallyClean(raw);
        if (cleaned.isEmpty()) {
            throw new CgroupException("cgroupsPath is empty and there is no container id to name the cgroup after");
        }
        if (cleaned.equals("/")) {
            throw new CgroupException("cgroupsPath \"" + raw + "\" is the root cgroup; a container needs a cgroup of its own");
        }
        if (cleaned.equals(".")) {
            throw new CgroupException("cgroupsPath \"" + raw + "\" is the runtime's own cgroup; a container needs a cgroup of its own");
        }
        return new CgroupsPath(cleaned);
    }

    public boolean isAbsolute() {
        return path.startsWith("/");
    }

    /** The directory of this cgroup in every hierarchy of {@code hierarchies}. */
    CgroupLocation resolve(CgroupHierarchies hierarchies) throws CgroupException {
        Map<String, Path> directories = new LinkedHashMap<>();
        for (Hierarchy hierarchy : hierarchies.hierarchies()) {
            directories.put(hierarchy.key(), directoryIn(hierarchy, hierarchies));
        }
        return CgroupLocation.of(hierarchies.mode(), directories);
    }

    private Path directoryIn(Hierarchy hierarchy, CgroupHierarchies hierarchies) throws CgroupException {
        if (isAbsolute()) {
            return hierarchy.below(path);
        }
        if (!hierarchy.isUnified()) {
            return hierarchy.directoryOf(hierarchies.ownCgroup(hierarchy)).resolve(path);
        }
        if (hierarchies.mode() == CgroupMode.HYBRID) {
            return hierarchy.below(path); // runc: GetOwnCgroupPath("") is the hybrid mount point itself
        }
        return hierarchy.directoryOf(parentOf(hierarchies.ownCgroup(hierarchy))).resolve(path);
    }

    private static String parentOf(String cgroup) {
        int slash = cgroup.lastIndexOf('/');
        return slash <= 0 ? "/" : cgroup.substring(0, slash);
    }

    /**
     * Go's {@code filepath.Clean} for absolute paths; relative paths are cleaned as if rooted and the
     * root taken off again, so {@code ../../x} becomes {@code x} and a path that cleans to nothing
     * becomes {@code .} (runc's {@code LexicallyCleanPath}).
     */
    static String lexicallyClean(String path) {
        if (path.isEmpty()) {
            return "";
        }
        Deque<String> segments = new ArrayDeque<>();
        for (String segment : path.split("/")) {
            switch (segment) {
                case "", "." -> { }
                case ".." -> segments.pollLast();
                default -> segments.addLast(segment);
            }
        }
        String joined = String.join("/", segments);
        if (path.startsWith("/")) {
            return "/" + joined;
        }
        return joined.isEmpty() ? "." : joined;
    }

    private static CgroupException systemdNotSupported(String raw, String containerId) {
        String slice;
        String unit;
        if (raw.isEmpty()) {
            slice = "system.slice";
            unit = "runc-" + containerId + ".scope";
        } else {
            String[] parts = raw.split(":", -1);
            if (parts.length != 3) {
                return new CgroupException("expected cgroupsPath to be of format \"slice:prefix:name\" for systemd cgroups, got \""
                        + raw + "\" instead");
            }
            slice = parts[0].isEmpty() ? "system.slice" : parts[0];
            unit = parts[2].endsWith(".slice") ? parts[2] : parts[1] + "-" + parts[2] + ".scope";
        }
        return new CgroupException("the systemd cgroup driver is not supported yet (cgroupsPath \"" + raw
                + "\" asks for unit " + unit + " in " + slice + "); run without --systemd-cgroup to use cgroupfs");
    }
}
