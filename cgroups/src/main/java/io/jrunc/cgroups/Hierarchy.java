package io.jrunc.cgroups;

import java.nio.file.Path;
import java.util.List;

/**
 * A cgroup hierarchy as this process sees it mounted.
 *
 * @param key        the controller list of the hierarchy as /proc/self/cgroup spells it
 *                   ({@code memory}, {@code cpu,cpuacct}, {@code name=systemd}), or {@code ""} for
 *                   the cgroup v2 hierarchy
 * @param mountPoint where the hierarchy is mounted
 * @param mountRoot  which cgroup of the hierarchy is at the mount point (the mountinfo root field:
 *                   {@code /} on a host, a deeper path when a container bind-mounts its own cgroup)
 * @param required   false for the hierarchies runc joins only on a best-effort basis (named
 *                   hierarchies such as name=systemd, misc, and the v2 hierarchy of a hybrid host): a
 *                   failure to create or join them is ignored, as runc's NameGroup ignores it
 */
record Hierarchy(String key, Path mountPoint, String mountRoot, boolean required) {

    /**
     * Best-effort hierarchies, as in runc's v1 driver (its NameGroup with Join): named ones such as
     * name=systemd, misc, and the v2 hierarchy of a hybrid host. All others are required.
     */
    static boolean isRequired(CgroupMode mode, String key) {
        if (key.isEmpty()) {
            return mode == CgroupMode.UNIFIED;
        }
        for (String controller : key.split(",")) {
            if (!controller.startsWith("name=") && !controller.equals("misc")) {
                return true;
            }
        }
        return false;
    }

    boolean isUnified() {
        return key.isEmpty();
    }

    List<String> controllers() {
        return isUnified() ? List.of() : List.of(key.split(","));
    }

    /** The directory of {@code cgroupPath}, a path as /proc/[pid]/cgroup shows it for this hierarchy. */
    Path directoryOf(String cgroupPath) throws CgroupException {
        String root = mountRoot.equals("/") ? "" : mountRoot;
        if (!cgroupPath.equals(mountRoot) && !cgroupPath.startsWith(root + "/")) {
            // runc computes filepath.Rel and would silently land outside the mount; refuse instead.
            throw new CgroupException("cgroup " + cgroupPath + " of hierarchy " + describe()
                    + " is not below the mounted part of it (" + mountRoot + " at " + mountPoint + ")");
        }
        return below(cgroupPath.substring(root.length()));
    }

    /** {@code path} (absolute or relative, lexically clean) taken relative to the mount point. */
    Path below(String path) {
        String relative = path.startsWith("/") ? path.substring(1) : path;
        return relative.isEmpty() ? mountPoint : mountPoint.resolve(relative);
    }

    String describe() {
        return isUnified() ? "cgroup2" : key;
    }
}
