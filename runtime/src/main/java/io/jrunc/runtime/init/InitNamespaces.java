package io.jrunc.runtime.init;

import io.jrunc.bindings.FileDescriptors;
import io.jrunc.bindings.FsContext;
import io.jrunc.bindings.Namespaces;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The namespaces of a container's init process, opened so the calling thread can join them. Every
 * descriptor is opened before any namespace is joined, because joining the mount namespace hides the
 * host's /proc. Namespaces the runtime already shares with the container are skipped. Joined in
 * runc's order (ipc, uts, net, pid, mnt, cgroup); the caller has unshared CLONE_FS (joining a mount
 * namespace needs it, and so does taking the init's root when the mount namespace is shared). Joining the pid namespace affects only the children the thread creates next.
 */
public final class InitNamespaces implements AutoCloseable {
    public static final List<String> ALL = List.of("ipc", "uts", "net", "pid", "mnt", "cgroup");
    private static final int[] FLAGS = {Namespaces.CLONE_NEWIPC, Namespaces.CLONE_NEWUTS, Namespaces.CLONE_NEWNET,
            Namespaces.CLONE_NEWPID, Namespaces.CLONE_NEWNS, Namespaces.CLONE_NEWCGROUP};

    private record Opened(int fd, int flag) {}

    private final int pid;
    private final List<Opened> opened = new ArrayList<>();
    /** The init's root, when its mount namespace is the runtime's: -1 otherwise. */
    private int root = -1;

    private InitNamespaces(int pid) {
        this.pid = pid;
    }

    /** Opens those of {@code kinds} (names from {@link #ALL}) in which {@code pid} differs from this thread. */
    public static InitNamespaces open(int pid, List<String> kinds) {
        InitNamespaces ns = new InitNamespaces(pid);
        try {
            for (int i = 0; i < ALL.size(); i++) {
                String kind = ALL.get(i);
                if (!kinds.contains(kind)) {
                    continue;
                }
                Path theirs = Path.of("/proc", Integer.toString(pid), "ns", kind);
                if (Files.readSymbolicLink(theirs).equals(Files.readSymbolicLink(Path.of("/proc/thread-self/ns", kind)))) {
                    if (kind.equals("mnt")) {
                        // A container without a mount namespace has a root of its own all the same
                        // (SharedMountNamespace): joining takes it from the init process.
                        ns.root = FileDescriptors.open("/proc/" + pid + "/root", FileDescriptors.O_PATH
                                | FileDescriptors.O_DIRECTORY | FileDescriptors.O_CLOEXEC);
                    }
                    continue;
                }
                ns.opened.add(new Opened(FileDescriptors.open(theirs.toString(),
                        FileDescriptors.O_RDONLY | FileDescriptors.O_CLOEXEC), FLAGS[i]));
            }
            return ns;
        } catch (IOException e) {
            ns.close();
            throw new UncheckedIOException("namespaces of " + pid, e);
        } catch (RuntimeException e) {
            ns.close();
            throw e;
        }
    }

    /**
     * A descriptor of {@code pid}'s user namespace when it differs from the calling thread's, else -1.
     * Not among the kinds {@link #join} joins: a user namespace is joined only by a single-threaded
     * process (the chain of the process being spawned).
     */
    public static int openUser(int pid) {
        Path theirs = Path.of("/proc", Integer.toString(pid), "ns", "user");
        try {
            if (Files.readSymbolicLink(theirs).equals(Files.readSymbolicLink(Path.of("/proc/thread-self/ns/user")))) {
                return -1;
            }
        } catch (IOException e) {
            throw new UncheckedIOException("namespaces of " + pid, e);
        }
        return FileDescriptors.open(theirs.toString(), FileDescriptors.O_RDONLY | FileDescriptors.O_CLOEXEC);
    }

    public void join() {
        for (Opened o : opened) {
            Namespaces.setns(o.fd(), o.flag(), "namespace of " + pid);
        }
        if (root >= 0) {
            FsContext.fchdir(root);
            FsContext.chroot(".");
        }
    }

    @Override
    public void close() {
        opened.forEach(o -> FileDescriptors.closeQuietly(o.fd()));
        FileDescriptors.closeQuietly(root);
    }
}
