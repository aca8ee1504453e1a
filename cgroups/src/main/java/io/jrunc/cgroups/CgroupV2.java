package io.jrunc.cgroups;

import io.jrunc.spec.LinuxResources;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;

/**
 * A container's cgroup on a unified (pure cgroup v2) host: one directory, whose ancestors enable
 * every controller they have for their children. Resource limits go to the v2 interface files
 * ({@link CgroupV2Resources}). There is no {@code addThread}: a thread cannot leave its process's
 * domain cgroup on its own; {@link #placeForChildren} moves the whole process instead.
 */
public final class CgroupV2 extends Cgroup {

    CgroupV2(CgroupLocation location, CgroupFiles files) {
        super(location, files);
    }

    private Path dir() {
        return location().directory("");
    }

    @Override
    public void apply(LinuxResources resources, CgroupV2DeviceFilter v2Devices) throws CgroupException {
        if (dir() == null) {
            // a rootless container without a cgroup (its user may not write one): nothing to write
            // unless a limit asks for a controller; device rules are not enforceable there anyway
            Set<String> needed = CgroupV2Resources.neededControllers(resources);
            if (!needed.isEmpty() || (resources != null && resources.unified() != null && !resources.unified().isEmpty())) {
                String what = needed.isEmpty() ? "unified" : needed.iterator().next();
                throw new CgroupException("cannot set " + what + " limit: container could not join or create cgroup"
                        + " (rootless container: " + (leftOutBecause != null ? leftOutBecause : "no cgroup")
                        + "; limits need a cgroup v2 subtree the user may write, such as one systemd delegates)");
            }
            return;
        }
        new CgroupV2Resources(files, dir()).apply(resources, v2Devices);
    }

    @Override
    Freezer freezer() throws CgroupException {
        return new Freezer.V2(files, existingDir());
    }

    /** The directory, or the error of a rootless container that has none. */
    private Path existingDir() throws CgroupException {
        Path dir = dir();
        if (dir == null) {
            throw new CgroupException("the container has no cgroup (rootless, and its user may not write one)");
        }
        return dir;
    }

    @Override
    public CgroupStats stats() throws CgroupException {
        return new CgroupStatsReader(files).v2(existingDir(), HugepageSizes.current());
    }

    @Override
    public java.util.Optional<OomNotifier> oomNotifier() throws CgroupException {
        if (dir() == null) {
            return java.util.Optional.empty();
        }
        // memory.events exists only where the parent enabled the memory controller for this group
        return java.nio.file.Files.exists(dir().resolve("memory.events"))
                ? java.util.Optional.of(OomNotifier.v2(dir())) : java.util.Optional.empty();
    }

    @Override
    public OomEvents oomEvents() throws CgroupException {
        if (dir() == null) {
            return new OomEvents(0, 0, false);
        }
        Map<String, Long> events = new CgroupStatsReader(files).keyValues(dir().resolve("memory.events"));
        return new OomEvents(events.getOrDefault("oom", 0L), events.getOrDefault("oom_kill", 0L), false);
    }
}
