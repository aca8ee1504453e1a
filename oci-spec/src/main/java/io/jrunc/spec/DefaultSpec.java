package io.jrunc.spec;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * The config {@code runc spec} writes (runc's {@code specconv.Example}), and the one {@code runc spec
 * --rootless} writes ({@code specconv.ToRootless}), member for member.
 *
 * <p>It follows runc 1.2 and later, with {@link SpecVersion#CURRENT} as ociVersion. Older runc (1.1)
 * differs in two ways only: it writes its own spec version and also fills the ambient capability set
 * (runc dropped that in 1.2 because ambient capabilities leak into every exec'd program).
 *
 * <p>Two host facts change the output, as in runc: a cgroup namespace is added when /sys/fs/cgroup is
 * cgroup v2, and the rootless id mappings map the caller's effective uid and gid to root.
 */
public final class DefaultSpec {

    private static final List<String> CAPABILITIES = List.of("CAP_AUDIT_WRITE", "CAP_KILL", "CAP_NET_BIND_SERVICE");

    private DefaultSpec() {
    }

    /** What {@code runc spec [--rootless]} writes on this host. */
    public static Spec forThisHost(boolean rootless) throws IOException {
        boolean cgroupNamespace = HostFacts.cgroupV2Unified();
        return rootless
                ? rootless(cgroupNamespace, HostFacts.effectiveUid(), HostFacts.effectiveGid())
                : example(cgroupNamespace);
    }

    /** runc's example config; {@code cgroupNamespace} is true on cgroup v2 hosts. */
    public static Spec example(boolean cgroupNamespace) {
        return spec(false, cgroupNamespace, null);
    }

    /**
     * The rootless variant: a user namespace mapping {@code hostUid}/{@code hostGid} to root, no network
     * namespace (an unprivileged user could not configure it), /sys bind-mounted since sysfs cannot be
     * mounted without owning the network namespace, no uid=/gid= mount options, and no cgroup limits.
     */
    public static Spec rootless(boolean cgroupNamespace, long hostUid, long hostGid) {
        return spec(true, cgroupNamespace, new long[] {hostUid, hostGid});
    }

    private static Spec spec(boolean rootless, boolean cgroupNamespace, long[] hostIds) {
        return new Spec(SpecVersion.CURRENT, process(), new Root("rootfs", true), "runc", null,
                mounts(rootless), null, null, linux(rootless, cgroupNamespace, hostIds));
    }

    private static Process process() {
        return Process.builder()
                .terminal(true)
                .user(new User(0L, 0L, null, null, null))
                .args(List.of("sh"))
                .env(List.of("PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "TERM=xterm"))
                .cwd("/")
                .capabilities(new LinuxCapabilities(CAPABILITIES, CAPABILITIES, null, CAPABILITIES, null))
                .rlimits(List.of(new POSIXRlimit("RLIMIT_NOFILE", 1024L, 1024L)))
                .noNewPrivileges(true)
                .build();
    }

    private static List<Mount> mounts(boolean rootless) {
        List<Mount> mounts = new ArrayList<>();
        mounts.add(mount("/proc", "proc", "proc", null));
        mounts.add(mount("/dev", "tmpfs", "tmpfs", List.of("nosuid", "strictatime", "mode=755", "size=65536k")));
        List<String> devpts = new ArrayList<>(List.of("nosuid", "noexec", "newinstance", "ptmxmode=0666", "mode=0620"));
        if (!rootless) {
            // gid=5 (tty) does not exist in a user namespace that maps a single id.
            devpts.add("gid=5");
        }
        mounts.add(mount("/dev/pts", "devpts", "devpts", devpts));
        mounts.add(mount("/dev/shm", "tmpfs", "shm", List.of("nosuid", "noexec", "nodev", "mode=1777", "size=65536k")));
        mounts.add(mount("/dev/mqueue", "mqueue", "mqueue", List.of("nosuid", "noexec", "nodev")));
        if (rootless) {
            mounts.add(mount("/sys", "none", "/sys", List.of("rbind", "nosuid", "noexec", "nodev", "ro")));
        } else {
            mounts.add(mount("/sys", "sysfs", "sysfs", List.of("nosuid", "noexec", "nodev", "ro")));
        }
        mounts.add(mount("/sys/fs/cgroup", "cgroup", "cgroup", List.of("nosuid", "noexec", "nodev", "relatime", "ro")));
        return mounts;
    }

    private static Mount mount(String destination, String type, String source, List<String> options) {
        return new Mount(destination, type, source, options, null, null);
    }

    private static Linux linux(boolean rootless, boolean cgroupNamespace, long[] hostIds) {
        List<LinuxIDMapping> uidMappings = null;
        List<LinuxIDMapping> gidMappings = null;
        LinuxResources resources = null;
        if (rootless) {
            uidMappings = List.of(new LinuxIDMapping(0L, hostIds[0], 1L));
            gidMappings = List.of(new LinuxIDMapping(0L, hostIds[1], 1L));
        } else {
            resources = new LinuxResources(List.of(new LinuxDeviceCgroup(false, null, null, null, "rwm")),
                    null, null, null, null, null, null, null, null);
        }
        return new Linux(uidMappings, gidMappings, null, resources, null,
                namespaces(rootless, cgroupNamespace), null, null, null, null,
                List.of("/proc/acpi", "/proc/asound", "/proc/kcore", "/proc/keys", "/proc/latency_stats",
                        "/proc/timer_list", "/proc/timer_stats", "/proc/sched_debug", "/sys/firmware",
                        "/proc/scsi"),
                List.of("/proc/bus", "/proc/fs", "/proc/irq", "/proc/sys", "/proc/sysrq-trigger"),
                null, null, null, null, null);
    }

    private static List<LinuxNamespace> namespaces(boolean rootless, boolean cgroupNamespace) {
        List<NamespaceType> types = new ArrayList<>(List.of(
                NamespaceType.PID, NamespaceType.NETWORK, NamespaceType.IPC, NamespaceType.UTS, NamespaceType.MOUNT));
        if (cgroupNamespace) {
            types.add(NamespaceType.CGROUP);
        }
        if (rootless) {
            types.remove(NamespaceType.NETWORK);
            types.add(NamespaceType.USER);
        }
        return types.stream().map(type -> new LinuxNamespace(type.jsonName(), null)).toList();
    }
}
