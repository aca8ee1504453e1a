package io.jrunc.cgroups;

/**
 * A container's cgroup on a unified (pure cgroup v2) host: one directory, whose ancestors enable
 * every controller they have for their children. Resource limits (a later change) go to the v2
 * interface files. There is no {@code addThread}: a thread cannot leave its process's domain cgroup
 * on its own; {@link #placeForChildren} moves the whole process instead.
 */
public final class CgroupV2 extends Cgroup {

    CgroupV2(CgroupLocation location) {
        super(location);
    }
}
