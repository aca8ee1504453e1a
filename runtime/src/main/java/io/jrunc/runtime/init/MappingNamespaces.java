package io.jrunc.runtime.init;

import io.jrunc.bindings.FileDescriptors;
import io.jrunc.spec.LinuxIDMapping;
import java.io.IOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * User namespaces that exist only to lend their id mapping to idmapped mounts (mount_setattr's
 * MOUNT_ATTR_IDMAP takes a user namespace descriptor, not a mapping). Each is made by a
 * {@link NamespaceHolder} with a new user namespace and nothing else: its maps written from here, its
 * /proc/PID/ns/user opened, then the holder released and reaped. The descriptor keeps the namespace
 * alive without the process. One namespace per distinct mapping, kept until {@link #close}.
 */
final class MappingNamespaces implements AutoCloseable {
    private final Map<String, Integer> byMapping = new HashMap<>();

    /** A descriptor of a user namespace with these maps, valid until {@link #close}. */
    int open(List<LinuxIDMapping> uids, List<LinuxIDMapping> gids) throws IOException {
        String key = IdMaps.lines(uids) + "/" + IdMaps.lines(gids);
        Integer fd = byMapping.get(key);
        if (fd == null) {
            fd = create(uids, gids);
            byMapping.put(key, fd);
        }
        return fd;
    }

    /** Makes one namespace, leaving no process behind whatever happens. */
    static int create(List<LinuxIDMapping> uids, List<LinuxIDMapping> gids) throws IOException {
        try (NamespaceHolder holder = NamespaceHolder.start(-1, 0, ChildStatus.Runtime.read().handledSignals())) {
            IdMaps.write(holder.pid(), uids, gids, IdMaps.Setgroups.DENY);
            holder.awaitReady();
            return holder.open("user");
        }
    }

    @Override
    public void close() {
        byMapping.values().forEach(FileDescriptors::closeQuietly);
        byMapping.clear();
    }
}
