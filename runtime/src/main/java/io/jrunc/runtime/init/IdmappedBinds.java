package io.jrunc.runtime.init;

import io.jrunc.bindings.Errno;
import io.jrunc.bindings.ErrnoException;
import io.jrunc.bindings.FileDescriptors;
import io.jrunc.bindings.MountApi;
import io.jrunc.spec.LinuxIDMapping;
import io.jrunc.spec.LinuxNamespace;
import io.jrunc.spec.Mount;
import io.jrunc.spec.Spec;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Bind mounts with an id mapping (a mount's {@code uidMappings}/{@code gidMappings}, or the options
 * "idmap"/"ridmap", which take the container's own mapping): a file owned on the source by a mount's
 * {@code containerID} shows through the mount as its {@code hostID}, and one the container creates as
 * a {@code hostID} is stored as the {@code containerID}. As runc makes them: a detached copy of the
 * source ({@code open_tree(OPEN_TREE_CLONE)}, with its submounts for "rbind"), MOUNT_ATTR_IDMAP set on
 * it with {@code mount_setattr} (on its submounts too for "ridmap"), the copy moved onto the
 * destination. The mapping's user namespace comes from {@link MappingNamespaces}. Only bind mounts can
 * be idmapped, and only by a runtime that is root in the initial user namespace (the kernel asks for
 * CAP_SYS_ADMIN there); both are checked before anything is made ({@link #refuse}).
 */
public final class IdmappedBinds implements AutoCloseable {
    private final Spec spec;
    private final MappingNamespaces namespaces = new MappingNamespaces();

    IdmappedBinds(Spec spec) {
        this.spec = spec;
    }

    static boolean isIdmapped(Mount m, MountOptions options) {
        return m.uidMappings() != null || m.gidMappings() != null || options.idmap() != MountOptions.Idmap.NONE;
    }

    /** Mounts {@code m}'s source idmapped at {@code dest}, a mount point already made. */
    void mount(Mount m, MountOptions options, Path dest, String where) {
        int userns = -1;
        boolean ownDescriptor = false;
        int tree = -1;
        try {
            if (m.uidMappings() != null) {
                userns = namespaces.open(m.uidMappings(), m.gidMappings());
            } else {
                String path = userNamespacePath(spec);
                if (path != null && !path.isEmpty()) {
                    userns = FileDescriptors.open(path, FileDescriptors.O_RDONLY | FileDescriptors.O_CLOEXEC);
                    ownDescriptor = true;
                } else {
                    userns = namespaces.open(spec.linux().uidMappings(), spec.linux().gidMappings());
                }
            }
            // a detached copy (with its submounts for an rbind): the kernel idmaps only a mount attached nowhere
            tree = options.recursiveBind() ? MountApi.cloneTree(-1, m.source()) : MountApi.cloneMount(-1, m.source());
            try {
                MountApi.idmap(tree, userns, options.idmap() == MountOptions.Idmap.RIDMAP, m.source());
            } catch (ErrnoException e) {
                throw new IllegalArgumentException(where + ": failed to set MOUNT_ATTR_IDMAP on " + m.source() + ": "
                        + Errno.describe(e.errno()) + (e.is(Errno.EINVAL)
                                ? " (maybe the filesystem used doesn't support idmap mounts on this kernel?)" : ""), e);
            }
            MountApi.moveMount(tree, dest.toString());
        } catch (IOException e) {
            throw new IllegalArgumentException(where + ": failed to create userns for " + m.source() + " id-mapping: "
                    + e.getMessage(), e);
        } finally {
            FileDescriptors.closeQuietly(tree);
            if (ownDescriptor) {
                FileDescriptors.closeQuietly(userns);
            }
        }
    }

    /**
     * runc's rules for idmapped mounts, checked before create makes anything: bind mounts only, a
     * mapping for both uids and gids (a mount's own, or with "idmap"/"ridmap" alone the container's user
     * namespace), and a runtime that is not rootless. {@code rootless} answers whether the runtime is,
     * asked only when a mount is idmapped (it reads /proc, which other creates need not pay for).
     */
    public static void refuse(Spec spec, java.util.function.BooleanSupplier rootless) {
        if (spec.mounts() == null) {
            return;
        }
        for (int i = 0; i < spec.mounts().size(); i++) {
            Mount m = spec.mounts().get(i);
            String where = "mounts[" + i + "]";
            MountOptions options = MountOptions.parse(m.options(), where + ".options");
            if (!isIdmapped(m, options)) {
                continue;
            }
            if (!options.isBind() && !"bind".equals(m.type())) {
                throw new IllegalArgumentException(where + ": id-mapped mounts are only supported for bind-mounts");
            }
            if (rootless.getAsBoolean()) {
                throw new IllegalArgumentException(where + ": id-mapped mounts are not supported for rootless containers");
            }
            if (m.uidMappings() == null && m.gidMappings() == null && userNamespacePath(spec) == null) {
                throw new IllegalArgumentException(where + ": id-mapped mounts must have both uid and gid mappings"
                        + " specified (option " + options.idmap().name().toLowerCase()
                        + " without mappings takes the container's, and it has no user namespace)");
            }
        }
    }

    /** The container's user namespace: "" to create one, its path to join one, null without. */
    private static String userNamespacePath(Spec spec) {
        if (spec.linux() == null || spec.linux().namespaces() == null) {
            return null;
        }
        for (LinuxNamespace ns : spec.linux().namespaces()) {
            if ("user".equals(ns.type())) {
                return ns.path() == null ? "" : ns.path();
            }
        }
        return null;
    }

    @Override
    public void close() {
        namespaces.close();
    }
}
