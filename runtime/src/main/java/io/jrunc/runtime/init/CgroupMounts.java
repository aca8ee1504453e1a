package io.jrunc.runtime.init;

import static io.jrunc.bindings.Mounts.*;

import io.jrunc.bindings.Errno;
import io.jrunc.bindings.ErrnoException;
import io.jrunc.bindings.Mounts;
import io.jrunc.cgroups.CgroupLocation;
import io.jrunc.cgroups.CgroupMode;
import java.nio.file.Path;
import java.util.Map;

/**
 * A "cgroup" or "cgroup2" mount in the config, done as runc does on each host kind:
 * <ul>
 *   <li>cgroup v2 with a new cgroup namespace: a fresh cgroup2 mount, whose root is the container's
 *       cgroup because the namespace was created inside it.</li>
 *   <li>otherwise, or where the kernel refuses that mount (EPERM, EBUSY): the container's own cgroup
 *       directories bound from the host (one per hierarchy under a tmpfs for v1 and hybrid), so the
 *       container sees its cgroup and nothing above it.</li>
 * </ul>
 * Mounted read-only unless the options say rw, like runc's default config.
 */
public record CgroupMounts(CgroupLocation location, boolean newCgroupNamespace) {

    public void mount(Path dest, MountOptions options, String type) {
        long flags = options.flags() & ~(MS_BIND | MS_REC);
        if (location.mode() == CgroupMode.UNIFIED) {
            Path own = location.directory("");
            if (newCgroupNamespace) {
                try {
                    Mounts.mount("cgroup2", dest.toString(), "cgroup2", flags, null);
                    return;
                } catch (ErrnoException e) {
                    // as runc: where the kernel refuses a fresh cgroup2 (EPERM in a user namespace
                    // without the right over it; EBUSY over a locked mount of /sys/fs/cgroup, as in a
                    // rootless container's bind of the host's /sys), the container's own cgroup is bound
                    if (!e.is(Errno.EPERM) && !e.is(Errno.EBUSY)) {
                        throw e;
                    }
                }
            }
            bind(own, dest, flags);
            return;
        }
        Mounts.mount("tmpfs", dest.toString(), "tmpfs", flags & ~MS_RDONLY, "mode=755");
        for (Map.Entry<String, String> h : location.directories().entrySet()) {
            String name = h.getKey().isEmpty() ? "unified" : h.getKey().replace("name=", "");
            Path at = dest.resolve(name);
            RootfsBuilder.createDirectory(at);
            bind(Path.of(h.getValue()), at, flags);
            if (name.contains(",")) {
                for (String single : name.split(",")) {
                    ScopedLinks.link(dest.resolve(single), name);
                }
            }
        }
        if ((flags & MS_RDONLY) != 0) {
            Mounts.mount(null, dest.toString(), null, MS_REMOUNT | flags, "mode=755");
        }
    }

    private static void bind(Path source, Path dest, long flags) {
        Mounts.mount(source.toString(), dest.toString(), null, MS_BIND, null);
        Mounts.mount(null, dest.toString(), null, MS_BIND | MS_REMOUNT | flags | RootfsBuilder.lockedFlags(dest), null);
    }
}
