package io.jrunc.cgroups;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The cgroup hierarchies a container's cgroup is made of, as this process sees them, and the cgroup
 * this process is in within each (relative cgroupsPaths are resolved against it).
 *
 * <p>Which hierarchies, as runc's cgroupfs driver (opencontainers/cgroups {@code fs.subsystems}):
 * every mounted v1 hierarchy carrying one of the controllers runc knows, plus name=systemd and misc;
 * other named hierarchies are left alone. On hybrid hosts the v2 hierarchy is joined too; on unified
 * hosts it is the only one. A v1 host without a devices hierarchy is refused, as runc refuses it: the
 * devices controller is what enforces device access there.
 */
record CgroupHierarchies(CgroupMode mode, List<Hierarchy> hierarchies, Map<String, String> ownCgroups) {

    /** The controllers runc's v1 driver creates cgroups for. */
    private static final Set<String> RUNC_CONTROLLERS = Set.of(
            "cpuset", "devices", "memory", "cpu", "cpuacct", "pids", "blkio", "hugetlb",
            "net_cls", "net_prio", "perf_event", "freezer", "rdma");
    /** Hierarchies runc joins on a best-effort basis (its NameGroup with Join=true). */
    private static final Set<String> RUNC_BEST_EFFORT = Set.of("name=systemd", "misc");

    CgroupHierarchies {
        hierarchies = List.copyOf(hierarchies);
        ownCgroups = Map.copyOf(ownCgroups);
    }

    static CgroupHierarchies current() throws CgroupException {
        CgroupMode mode = CgroupMode.detect();
        try {
            return of(mode,
                    Files.readString(Path.of("/proc/self/mountinfo")),
                    Files.readString(Path.of("/proc/self/cgroup")));
        } catch (IOException e) {
            throw new CgroupException("cannot read this process's mounts and cgroups: " + e.getMessage(), e);
        }
    }

    static CgroupHierarchies of(CgroupMode mode, String mountinfo, String procSelfCgroup) throws CgroupException {
        List<MountInfo> mounts = MountInfo.parse(mountinfo);
        List<CgroupMembership> memberships = CgroupMembership.parse(procSelfCgroup);
        List<Hierarchy> hierarchies = new ArrayList<>();
        Map<String, String> own = new LinkedHashMap<>();

        if (mode != CgroupMode.UNIFIED) {
            for (CgroupMembership membership : memberships) {
                if (membership.isUnified()) {
                    continue;
                }
                List<String> controllers = List.of(membership.hierarchyKey().split(","));
                if (controllers.stream().noneMatch(c -> RUNC_CONTROLLERS.contains(c) || RUNC_BEST_EFFORT.contains(c))) {
                    continue;
                }
                // runc takes the first cgroup mount whose options name the hierarchy's first controller.
                Optional<MountInfo> mount = mounts.stream()
                        .filter(m -> m.fsType().equals("cgroup") && m.superOptions().contains(controllers.getFirst()))
                        .findFirst();
                if (mount.isEmpty()) {
                    continue; // not mounted: runc skips it
                }
                hierarchies.add(new Hierarchy(membership.hierarchyKey(), mount.get().mountPoint(), mount.get().root(),
                        Hierarchy.isRequired(mode, membership.hierarchyKey())));
                own.put(membership.hierarchyKey(), membership.path());
            }
            if (hierarchies.stream().noneMatch(h -> h.controllers().contains("devices"))) {
                throw new CgroupException("mountpoint for devices not found");
            }
        }

        Optional<Path> cgroup2 = mode.cgroup2MountPoint();
        if (cgroup2.isPresent()) {
            // The last mount on the mount point is the visible one.
            MountInfo mount = mounts.stream()
                    .filter(m -> m.fsType().equals("cgroup2") && m.mountPoint().equals(cgroup2.get()))
                    .reduce((first, second) -> second)
                    .orElseThrow(() -> new CgroupException("no cgroup2 mount at " + cgroup2.get() + " in /proc/self/mountinfo"));
            CgroupMembership membership = memberships.stream()
                    .filter(CgroupMembership::isUnified)
                    .findFirst()
                    .orElseThrow(() -> new CgroupException("no cgroup v2 entry (0::) in /proc/self/cgroup"));
            hierarchies.add(new Hierarchy("", mount.mountPoint(), mount.root(), Hierarchy.isRequired(mode, "")));
            own.put("", membership.path());
        }
        return new CgroupHierarchies(mode, hierarchies, own);
    }

    Optional<Hierarchy> byKey(String key) {
        return hierarchies.stream().filter(h -> h.key().equals(key)).findFirst();
    }

    String ownCgroup(Hierarchy hierarchy) {
        return ownCgroups.get(hierarchy.key());
    }
}
