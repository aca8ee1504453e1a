package io.jrunc.cgroups;

import java.nio.file.Path;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Function;

/**
 * How the host has mounted cgroups. Detected the way runc does it (opencontainers/cgroups
 * {@code IsCgroup2UnifiedMode}, {@code IsCgroup2HybridMode}): by the filesystem magic of
 * {@code /sys/fs/cgroup} and of {@code /sys/fs/cgroup/unified}, not by parsing mount tables.
 */
public enum CgroupMode {
    /** Pure cgroup v2: a cgroup2 filesystem at /sys/fs/cgroup holds every controller. */
    UNIFIED,
    /**
     * cgroup v1 controller hierarchies under /sys/fs/cgroup plus a cgroup2 mount at
     * /sys/fs/cgroup/unified (systemd's "hybrid" layout). The v1 hierarchies carry the controllers;
     * the v2 one usually carries none or a few (hugetlb on some hosts). crun refuses such hosts; we
     * handle them as runc does: the v1 hierarchies are the cgroup, the v2 one is joined as well.
     */
    HYBRID,
    /** cgroup v1 only. */
    LEGACY;

    static final Path UNIFIED_MOUNT_POINT = Path.of("/sys/fs/cgroup");
    static final Path HYBRID_MOUNT_POINT = Path.of("/sys/fs/cgroup/unified");

    /** The mode of the cgroup hierarchies this process sees. */
    public static CgroupMode detect() {
        return detect(StatFs::type);
    }

    /**
     * runc's rule: cgroup2 at /sys/fs/cgroup means unified; otherwise cgroup2 at
     * /sys/fs/cgroup/unified means hybrid; anything else (including statfs failing) is legacy.
     */
    static CgroupMode detect(Function<Path, OptionalLong> filesystemMagic) {
        if (isCgroup2(filesystemMagic.apply(UNIFIED_MOUNT_POINT))) {
            return UNIFIED;
        }
        if (isCgroup2(filesystemMagic.apply(HYBRID_MOUNT_POINT))) {
            return HYBRID;
        }
        return LEGACY;
    }

    private static boolean isCgroup2(OptionalLong magic) {
        return magic.isPresent() && magic.getAsLong() == StatFs.CGROUP2_SUPER_MAGIC;
    }

    /** Where the cgroup2 hierarchy of this mode is mounted; empty for {@link #LEGACY}. */
    Optional<Path> cgroup2MountPoint() {
        return switch (this) {
            case UNIFIED -> Optional.of(UNIFIED_MOUNT_POINT);
            case HYBRID -> Optional.of(HYBRID_MOUNT_POINT);
            case LEGACY -> Optional.empty();
        };
    }
}
