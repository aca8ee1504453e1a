package io.jrunc.runtime;

import io.jrunc.spec.Linux;
import io.jrunc.spec.LinuxIDMapping;
import io.jrunc.spec.LinuxNamespace;
import io.jrunc.spec.Mount;
import io.jrunc.spec.Spec;
import java.util.ArrayList;
import java.util.List;

/**
 * What a config must carry for jrunc run by an unprivileged user (runc's rootless validation,
 * libcontainer/configs/validate/rootless.go), and the config as the re-executed jrunc uses it once it
 * is inside the container's user namespace.
 */
public final class RootlessConfig {
    private RootlessConfig() {}

    /** The container's user namespace entry, or null. */
    public static LinuxNamespace userNamespace(Spec spec) {
        if (spec.linux() == null || spec.linux().namespaces() == null) {
            return null;
        }
        for (LinuxNamespace ns : spec.linux().namespaces()) {
            if ("user".equals(ns.type())) {
                return ns;
            }
        }
        return null;
    }

    /**
     * Refuses, with one line naming the field, a config an unprivileged user cannot run: no user
     * namespace; a new one without a uid or a gid mapping; a uid= or gid= mount option whose id the
     * maps leave out (the kernel would refuse it, less clearly); an idmapped mount (mount_setattr
     * needs privilege in the initial user namespace; runc refuses it too).
     */
    public static void validate(Spec spec) {
        LinuxNamespace userns = userNamespace(spec);
        if (userns == null) {
            throw new ContainerException("linux.namespaces: rootless container requires user namespaces"
                    + " (jrunc runs as an unprivileged user; add a \"user\" namespace with uid and gid mappings)");
        }
        Linux linux = spec.linux();
        boolean joining = userns.path() != null && !userns.path().isEmpty();
        if (!joining) {
            if (linux.uidMappings() == null || linux.uidMappings().isEmpty()) {
                throw new ContainerException("linux.uidMappings: rootless container requires at least one UID mapping");
            }
            if (linux.gidMappings() == null || linux.gidMappings().isEmpty()) {
                throw new ContainerException("linux.gidMappings: rootless container requires at least one GID mapping");
            }
        }
        List<Mount> mounts = spec.mounts() == null ? List.of() : spec.mounts();
        for (int i = 0; i < mounts.size(); i++) {
            Mount m = mounts.get(i);
            if ((m.uidMappings() != null && !m.uidMappings().isEmpty())
                    || (m.gidMappings() != null && !m.gidMappings().isEmpty())) {
                throw new ContainerException("mounts[" + i + "].uidMappings: idmapped mounts are not supported for"
                        + " rootless containers (mapping a mount needs privilege in the initial user namespace)");
            }
            if (m.options() == null || joining) {
                continue;
            }
            for (String option : m.options()) {
                checkMapped(option, "uid=", linux.uidMappings(), "mounts[" + i + "].options");
                checkMapped(option, "gid=", linux.gidMappings(), "mounts[" + i + "].options");
            }
        }
    }

    private static void checkMapped(String option, String prefix, List<LinuxIDMapping> mappings, String where) {
        if (!option.startsWith(prefix)) {
            return;
        }
        long id;
        try {
            id = Long.parseLong(option.substring(prefix.length()));
        } catch (NumberFormatException e) {
            return; // not an id: left to the filesystem, as runc leaves it
        }
        if (hostId(mappings, id) < 0) {
            throw new ContainerException(where + ": cannot specify " + option + " mount option for rootless container: "
                    + prefix.charAt(0) + "id " + id + " is not mapped by linux." + prefix.charAt(0) + "idMappings");
        }
    }

    /** The host id that container id {@code id} maps to, or -1. */
    static long hostId(List<LinuxIDMapping> mappings, long id) {
        for (LinuxIDMapping m : mappings) {
            if (id >= m.containerID() && id < m.containerID() + m.size()) {
                return m.hostID() + (id - m.containerID());
            }
        }
        return -1;
    }

    /**
     * The config as seen from inside its user namespace, which the re-executed jrunc has already
     * entered: the user namespace and the mappings are gone (they are in effect), everything else is
     * as written. The bundle's config.json is kept verbatim in the state directory.
     */
    public static Spec withUserNamespaceEntered(Spec spec) {
        Linux l = spec.linux();
        List<LinuxNamespace> others = new ArrayList<>();
        for (LinuxNamespace ns : l.namespaces()) {
            if (!"user".equals(ns.type())) {
                others.add(ns);
            }
        }
        Linux linux = new Linux(null, null, l.sysctl(), l.resources(), l.cgroupsPath(), others, l.devices(),
                l.netDevices(), l.seccomp(), l.rootfsPropagation(), l.maskedPaths(), l.readonlyPaths(), l.mountLabel(),
                l.intelRdt(), l.memoryPolicy(), l.personality(), l.timeOffsets());
        return new Spec(spec.ociVersion(), spec.process(), spec.root(), spec.hostname(), spec.domainname(),
                spec.mounts(), spec.hooks(), spec.annotations(), linux);
    }
}
