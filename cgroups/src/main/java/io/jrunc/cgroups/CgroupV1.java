package io.jrunc.cgroups;

import io.jrunc.spec.LinuxResources;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A container's cgroup on a cgroup v1 host ({@link CgroupMode#LEGACY}) or a hybrid one
 * ({@link CgroupMode#HYBRID}): one directory per v1 hierarchy, and on hybrid hosts also one in the
 * v2 hierarchy, which runc joins but sets nothing in. Resource limits go to the v1 controller files
 * ({@link CgroupV1Resources}); on a hybrid host whose v1 hierarchies lack hugetlb, hugetlb limits go
 * to the v2 directory (see docs/cgroups.md).
 */
public final class CgroupV1 extends Cgroup {

    CgroupV1(CgroupLocation location, CgroupFiles files) {
        super(location, files);
    }

    /** Each v1 controller of this cgroup to its directory (co-mounted controllers share one). */
    Map<String, Path> byController() {
        Map<String, Path> map = new LinkedHashMap<>();
        for (CgroupDirectory directory : directories) {
            for (String controller : directory.controllers()) {
                map.put(controller, directory.path());
            }
        }
        return map;
    }

    @Override
    public void apply(LinuxResources resources, CgroupV2DeviceFilter v2Devices) throws CgroupException {
        new CgroupV1Resources(files, byController(), location().directory(""), rootless, leftOutBecause).apply(resources);
    }

    @Override
    Freezer freezer() throws CgroupException {
        Path dir = byController().get("freezer");
        if (dir == null) {
            throw new CgroupException("freezer not supported: the container has no freezer cgroup");
        }
        return new Freezer.V1(files, dir);
    }

    @Override
    public CgroupStats stats() throws CgroupException {
        return new CgroupStatsReader(files).v1(byController(), location().directory(""), HugepageSizes.current());
    }

    @Override
    public java.util.Optional<OomNotifier> oomNotifier() throws CgroupException {
        Path dir = byController().get("memory");
        return dir == null ? java.util.Optional.empty() : java.util.Optional.of(OomNotifier.v1(dir));
    }

    @Override
    public OomEvents oomEvents() throws CgroupException {
        Path dir = byController().get("memory");
        if (dir == null) {
            return new OomEvents(0, 0, false);
        }
        Map<String, Long> control = new CgroupStatsReader(files).keyValues(dir.resolve("memory.oom_control"));
        long kills = control.getOrDefault("oom_kill", 0L);
        return new OomEvents(kills, kills, control.getOrDefault("under_oom", 0L) == 1);
    }

    /**
     * Moves one thread (not its whole process) into this cgroup in every v1 hierarchy, through the
     * {@code tasks} file. The v2 hierarchy of a hybrid host is left alone: there a single thread
     * cannot move; use {@link #placeForChildren} to cover it as well.
     */
    public void addThread(long tid) throws CgroupException {
        for (CgroupDirectory directory : directories) {
            if (directory.isUnified()) {
                continue;
            }
            try {
                directory.addThread(tid);
            } catch (CgroupException e) {
                if (directory.required()) {
                    throw e;
                }
            }
        }
    }
}
