package io.jrunc.runtime.init;

import io.jrunc.bindings.FileDescriptors;
import io.jrunc.bindings.Namespaces;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A container without a mount namespace of its own: its process is in the runtime's mount namespace,
 * as the config asks, and yet nothing is mounted on the host's tree. The root is built as for any
 * container, in a mount namespace of the spawning thread's that nobody else shares (the config's
 * mounts, the proc placeholder with the exec gate, pivot_root, procfs and the masked paths by the
 * finisher). Once the root is final the child, still with the runtime's credentials, takes a detached
 * copy of its whole root ({@code open_tree(OPEN_TREE_CLONE | AT_RECURSIVE)}), joins the runtime's mount
 * namespace and makes the copy its root and working directory ({@code fchdir}, {@code chroot}). The
 * building namespace then has no member and goes when the creating thread ends; the copy has no mount
 * namespace, so the kernel keeps its mounts together for as long as a process uses them (a detached tree
 * whose last descriptor closes is dissolved with its mounts left connected), and the host's mount table
 * never changes. Inside, the process cannot mount anything (mount(2) needs a target in its own
 * namespace), /proc/self/mountinfo lists nothing, and `exec` and the hooks take the root through
 * /proc/PID/root ({@link InitNamespaces}).
 */
public final class SharedMountNamespace {
    private SharedMountNamespace() {}

    private static final int OPEN_TREE_CLONE = 1, AT_RECURSIVE = 0x8000;

    /**
     * An unbindable root cannot be copied (open_tree answers EINVAL), and the copy is what the process
     * gets: refused by its field.
     */
    static void refuse(io.jrunc.spec.Spec spec) {
        String propagation = spec.linux() == null ? null : spec.linux().rootfsPropagation();
        if ("unbindable".equals(propagation) || "runbindable".equals(propagation)) {
            throw new IllegalArgumentException("linux.rootfsPropagation: " + propagation + " needs a mount namespace"
                    + " of the container's own (without one the process's root is a copy of the built root, and an"
                    + " unbindable mount cannot be copied)");
        }
    }

    /** The runtime's mount namespace, opened by the spawning thread before it makes its own. */
    static int open() {
        return FileDescriptors.open("/proc/thread-self/ns/mnt", FileDescriptors.O_RDONLY | FileDescriptors.O_CLOEXEC);
    }

    /**
     * The child's steps once the root is final. open_tree returns the lowest free descriptor: with 0
     * closed first (and kept at {@code mountNs + 1} meanwhile) that is 0, a number the chain can name.
     * If 0 was closed to begin with, the copies fail and 0 ends closed again.
     */
    static void leave(ChainSpawn chain, int mountNs) {
        int spare = mountNs + 1;
        chain.libc("dup2", 0, spare);
        chain.libc("close", 0);
        chain.sys("open_tree", FileDescriptors.AT_FDCWD, chain.string("/"), OPEN_TREE_CLONE | AT_RECURSIVE);
        chain.sys("setns", mountNs, Namespaces.CLONE_NEWNS);
        chain.sys("fchdir", 0);
        chain.sys("chroot", chain.string("."));
        chain.libc("close", 0);
        chain.libc("dup2", spare, 0);
        chain.libc("close", spare);
        chain.libc("close", mountNs);
    }

    /**
     * A chain does not check its steps: the child, at the exec gate, must be in the runtime's mount
     * namespace (the steps above ran) and not at the host's root.
     */
    public static void verify(int pid) {
        try {
            Path proc = Path.of("/proc", Integer.toString(pid));
            boolean joined = Files.readSymbolicLink(proc.resolve("ns/mnt"))
                    .equals(Files.readSymbolicLink(Path.of("/proc/self/ns/mnt")));
            boolean hostRoot = Files.isSameFile(proc.resolve("root"), Path.of("/"));
            if (!joined || hostRoot) {
                throw new IllegalStateException("the container process did not move to the runtime's mount namespace"
                        + " with its root (open_tree, setns or chroot failed)");
            }
        } catch (IOException e) {
            throw new UncheckedIOException("checking the mount namespace of " + pid, e);
        }
    }
}
