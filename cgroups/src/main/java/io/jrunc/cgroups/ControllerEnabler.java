package io.jrunc.cgroups;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Makes cgroup v2 controllers available in one cgroup by enabling them in the cgroup.subtree_control of
 * every ancestor, from the top of the cgroup2 mount down, and only those that are asked for. On a
 * unified host {@link Cgroup#create} already enabled everything, so this normally finds nothing to do;
 * on a hybrid host it is how a limit whose controller exists only in the v2 hierarchy (hugetlb on this
 * project's machine) can be set, while everything else in that host-owned tree stays as it was.
 *
 * <p>The kernel's no-internal-process rule is honoured: an ancestor below the root that has processes
 * of its own cannot enable domain controllers, so it is not written, and the controller stays
 * unavailable (the caller reports that).
 */
record ControllerEnabler(CgroupFiles files, Path cgroup) {

    static final String CONTROLLERS = "cgroup.controllers";
    static final String SUBTREE_CONTROL = "cgroup.subtree_control";

    /** The controllers available in the cgroup now. */
    Set<String> available() throws CgroupException {
        return words(cgroup.resolve(CONTROLLERS));
    }

    /**
     * Tries to make each of {@code wanted} available; returns those that are still not (the parent
     * does not have them, or an ancestor cannot enable them). Never fails for a controller that is
     * merely missing: the caller decides whether that matters.
     */
    Set<String> enable(Set<String> wanted) throws CgroupException {
        Set<String> missing = new LinkedHashSet<>(wanted);
        missing.removeAll(available());
        if (missing.isEmpty()) {
            return missing;
        }
        for (Path level : ancestorsTopDown()) {
            Set<String> have = words(level.resolve(CONTROLLERS));
            Set<String> enabled = words(level.resolve(SUBTREE_CONTROL));
            boolean mayEnable = !hasOwnProcessesBelowRoot(level);
            for (String controller : missing) {
                if (have.contains(controller) && !enabled.contains(controller) && mayEnable) {
                    try {
                        files.write(level.resolve(SUBTREE_CONTROL), "+" + controller);
                    } catch (CgroupException e) {
                        // left unavailable; reported by the caller with the cgroup it was wanted in
                    }
                }
            }
        }
        missing.removeAll(available());
        return missing;
    }

    /** The cgroup's ancestors inside the cgroup2 mount, top (the mount point) first. */
    private List<Path> ancestorsTopDown() {
        List<Path> levels = new ArrayList<>();
        for (Path p = cgroup.getParent(); p != null && files.exists(p.resolve(CONTROLLERS)); p = p.getParent()) {
            levels.addFirst(p);
        }
        return levels;
    }

    // Only the root lacks cgroup.type, and only the root is exempt from the no-internal-process rule.
    private boolean hasOwnProcessesBelowRoot(Path level) throws CgroupException {
        return files.exists(level.resolve("cgroup.type"))
                && !files.read(level.resolve(CgroupDirectory.PROCS)).isBlank();
    }

    private Set<String> words(Path file) throws CgroupException {
        String content = files.read(file).trim();
        return content.isEmpty() ? new LinkedHashSet<>() : new LinkedHashSet<>(List.of(content.split("\\s+")));
    }
}
