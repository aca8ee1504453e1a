package io.jrunc.runtime.init;

import io.jrunc.bindings.ErrnoException;
import io.jrunc.bindings.FileDescriptors;
import io.jrunc.bindings.LibcChain;
import io.jrunc.bindings.Namespaces;
import io.jrunc.bindings.Processes;
import io.jrunc.bindings.Signals;
import io.jrunc.spec.LinuxIDMapping;
import java.io.IOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * User namespaces that exist only to lend their id mapping to idmapped mounts (mount_setattr's
 * MOUNT_ATTR_IDMAP takes a user namespace descriptor, not a mapping). Each is made by a short-lived
 * child cloned with CLONE_NEWUSER that runs a libc chain (close its copy of the pipe's write end,
 * block reading the pipe, _exit): while it blocks, the maps are written from here and its
 * /proc/PID/ns/user opened; then the pipe is closed, the child killed and reaped. The descriptor keeps
 * the namespace alive without the process. If the JVM dies meanwhile the pipe's last write end closes
 * and the child's read returns, so it exits by itself.
 *
 * <p>The child is cloned without CLONE_VM: it runs while this thread goes on, and in a memory of its
 * own the libc calls it makes cannot touch this thread's state. One namespace per distinct mapping,
 * kept until {@link #close}.
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
        int[] pipe = FileDescriptors.pipe(FileDescriptors.O_CLOEXEC);
        int pid = -1;
        try {
            try (LibcChain chain = new LibcChain()) {
                chain.call("close", pipe[1]);
                chain.call("read", pipe[0], chain.zeroed(8), 1);
                pid = chain.run(Namespaces.CLONE_NEWUSER);
            }
            IdMaps.write(pid, uids, gids, IdMaps.Setgroups.DENY);
            return FileDescriptors.open("/proc/" + pid + "/ns/user", FileDescriptors.O_RDONLY | FileDescriptors.O_CLOEXEC);
        } finally {
            FileDescriptors.closeQuietly(pipe[1]);
            FileDescriptors.closeQuietly(pipe[0]);
            if (pid > 0) {
                try {
                    Processes.kill(pid, Signals.SIGKILL);
                } catch (ErrnoException gone) {
                    // exited on its own once the pipe closed
                }
                ChildWaits.waitpid(pid, Processes.__WALL);
            }
        }
    }

    @Override
    public void close() {
        byMapping.values().forEach(FileDescriptors::closeQuietly);
        byMapping.clear();
    }
}
