package io.jrunc.cgroups;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Makes a new cgroup's directory in each hierarchy, preparing every level on the way down from the
 * mount point the way that hierarchy needs it, and remembers which directories it made so a failed
 * create can take them away again (an existing cgroup that was merely joined is never removed).
 */
final class CgroupDirectoryBuilder {
    private final List<Path> made = new ArrayList<>();

    /**
     * @param enableControllers on cgroup v2, whether ancestors enable their controllers for their
     *                          children: yes on a unified host (as runc), no on a hybrid host, where the
     *                          v1 hierarchies carry the controllers and runc only joins the v2 one
     */
    void build(Hierarchy hierarchy, Path directory, boolean enableControllers) throws CgroupException {
        Path mountPoint = hierarchy.mountPoint();
        if (!directory.startsWith(mountPoint) || directory.equals(mountPoint)) {
            throw new CgroupException(directory + " is not below the " + hierarchy.describe() + " mount at " + mountPoint);
        }
        boolean cpuset = hierarchy.controllers().contains("cpuset");
        Path parent = mountPoint;
        for (Path name : mountPoint.relativize(directory)) {
            Path level = parent.resolve(name);
            if (hierarchy.isUnified() && enableControllers) {
                new SubtreeControl(parent).enableAvailable();
            }
            makeDirectory(level);
            if (cpuset) {
                new CpusetInheritance(level).copyFromParentIfEmpty();
            }
            parent = level;
        }
    }

    private void makeDirectory(Path level) throws CgroupException {
        try {
            Files.createDirectory(level);
            made.add(level);
        } catch (FileAlreadyExistsException e) {
            // joined, not made: runc's MkdirAll semantics
        } catch (IOException e) {
            throw new CgroupException("mkdir " + level + ": " + CgroupDirectory.reason(e), e);
        }
    }

    /** Whether {@link #build} made {@code directory} (rather than found it there). */
    boolean made(Path directory) {
        return made.contains(directory);
    }

    /** Removes, deepest first, what {@link #build} made; failures are ignored (this is cleanup). */
    void undo() {
        for (Path level : made.reversed()) {
            try {
                CgroupDirectory.removeTree(level);
            } catch (CgroupException ignored) {
                // best effort: the error that made us undo is the one to report
            }
        }
        made.clear();
    }
}
