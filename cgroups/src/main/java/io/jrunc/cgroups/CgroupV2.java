package io.jrunc.cgroups;

import io.jrunc.spec.LinuxResources;
import java.nio.file.Path;
import java.util.Map;

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
        new CgroupV2Resources(files, dir()).apply(resources, v2Devices);
    }

    @Override
    Freezer freezer() {
        return new Freezer.V2(files, dir());
    }

    @Override
    public CgroupStats stats() throws CgroupException {
        return new CgroupStatsReader(files).v2(dir(), HugepageSizes.current());
    }

    @Override
    public java.util.Optional<OomNotifier> oomNotifier() throws CgroupException {
        // memory.events exists only where the parent enabled the memory controller for this group
        return java.nio.file.Files.exists(dir().resolve("memory.events"))
                ? java.util.Optional.of(OomNotifier.v2(dir())) : java.util.Optional.empty();
    }

    @Override
    public OomEvents oomEvents() throws CgroupException {
        Map<String, Long> events = new CgroupStatsReader(files).keyValues(dir().resolve("memory.events"));
        return new OomEvents(events.getOrDefault("oom", 0L), events.getOrDefault("oom_kill", 0L), false);
    }
}
