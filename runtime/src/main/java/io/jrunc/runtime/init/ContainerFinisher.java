package io.jrunc.runtime.init;

import io.jrunc.bindings.Errno;
import io.jrunc.bindings.ErrnoException;
import io.jrunc.bindings.FileDescriptors;
import io.jrunc.bindings.RootedFiles;
import io.jrunc.bindings.FsContext;
import io.jrunc.bindings.MountApi;
import io.jrunc.bindings.Mounts;
import io.jrunc.spec.Spec;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Finishes the container's filesystem once its PID 1 exists and waits at the exec gate. procfs takes
 * its pid namespace from the task that mounts it, and no JVM thread can be inside the container's pid
 * namespace, so each proc mount is built on the host with the "pidns" parameter naming that namespace
 * (/proc/PID/ns/pid), then attached from a thread that joined the container's namespaces, in place of
 * the small tmpfs that held its place (and the gate), with every mount listed after it made again so
 * that the config's order holds ({@link MountOrder}). With /proc in place: sysctls (written in the container's network
 * and IPC namespaces, which decide what /proc/sys/net and /proc/sys/kernel/shm* mean), then masked
 * and read-only paths and the read-only root.
 *
 * <p>The "pidns" parameter of procfs needs Linux 6.18 or later. On older kernels each context is
 * opened by a libc-only child created in the container's pid namespace and handed back
 * ({@link ProcContexts}); the rest is the same, and each mount is verified from outside: a procfs
 * whose PID 1 is in the container's pid namespace.
 */
public final class ContainerFinisher {
    private ContainerFinisher() {}

    public static void finish(Spec spec, int pid, RootfsBuilder.Prepared prepared) throws Exception {
        Throwable[] failure = new Throwable[1];
        Thread t = Thread.ofPlatform().name("jrunc-finish").unstarted(() -> {
            try {
                run(spec, pid, prepared);
            } catch (Throwable e) {
                failure[0] = e;
            }
        });
        t.start();
        t.join();
        if (failure[0] instanceof Exception e) {
            throw e;
        } else if (failure[0] instanceof Error e) {
            throw e;
        }
    }

    private static void run(Spec spec, int pid, RootfsBuilder.Prepared prepared) throws IOException {
        FsContext.unshare();
        String pidns = "/proc/" + pid + "/ns/pid";
        String expectedPidNamespace = Files.readSymbolicLink(Path.of(pidns)).toString();
        List<Integer> contexts = new ArrayList<>();
        List<Integer> premade = new ArrayList<>();
        try {
            // Read from the host while the child waits at the gate: its mount namespace, paths in its root.
            MountOrder order = MountOrder.plan(Files.readAllLines(Path.of("/proc/" + pid + "/mountinfo")), prepared);
            boolean openedInside = false;
            try {
                for (int i = 0; i < prepared.procMounts().size(); i++) {
                    contexts.add(MountApi.configure("proc", Map.of("source", "proc", "pidns", pidns)));
                }
            } catch (ErrnoException e) {
                if (!e.is(Errno.EINVAL)) {
                    throw e;
                }
                // procfs without the "pidns" parameter (Linux before 6.18): the contexts are opened by
                // a child in the container's pid namespace, which this thread joins for its children
                // only, staying in the runtime's mount namespace (ProcContexts).
                contexts.forEach(FileDescriptors::closeQuietly);
                contexts.clear();
                openedInside = true;
                try (InitNamespaces namespaces = InitNamespaces.open(pid, List.of("pid"))) {
                    namespaces.join();
                }
                String forChildren = Files.readSymbolicLink(Path.of("/proc/thread-self/ns/pid_for_children")).toString();
                if (!forChildren.equals(expectedPidNamespace)) {
                    throw new IllegalStateException("joining the container's pid namespace " + expectedPidNamespace
                            + " left this thread's children in " + forChildren);
                }
                for (int i = 0; i < prepared.procMounts().size(); i++) {
                    contexts.add(MountApi.configure(ProcContexts.open(), "proc", Map.of("source", "proc")));
                }
            }
            boolean verify = openedInside;
            if (inUserNamespace() || !Files.readSymbolicLink(Path.of("/proc/" + pid + "/ns/user"))
                    .equals(Files.readSymbolicLink(Path.of("/proc/thread-self/ns/user")))) {
                // In a mount namespace owned by a user namespace other than the initial one, the kernel
                // mounts procfs only where a procfs is already fully visible ("mount too revealing"
                // otherwise), and the container's holds none after pivot_root: make the mounts here,
                // in the runtime's namespace, which has the host's /proc, and attach them from inside.
                for (int i = 0; i < contexts.size(); i++) {
                    premade.add(procMount(contexts.get(i), prepared.procMounts().get(i), verify, expectedPidNamespace));
                }
            }
            try (InitNamespaces namespaces = InitNamespaces.open(pid, List.of("ipc", "uts", "net", "mnt"))) {
                namespaces.join();
            }
            order.apply(index -> premade.isEmpty()
                    ? procMount(contexts.get(index), prepared.procMounts().get(index), verify, expectedPidNamespace)
                    : premade.set(index, -1)); // MountOrder owns (and closes) it from here
            // sysctls first, as runc writes them: Docker lists /proc/sys among the read-only paths
            // and sends sysctls for every container with its own network namespace
            writeSysctls(spec);
            RootfsBuilder.finish(spec);
        } finally {
            contexts.forEach(FileDescriptors::closeQuietly);
            premade.forEach(FileDescriptors::closeQuietly);
            prepared.closeHandles();
        }
    }

    /**
     * The detached procfs of a configured context, with the proc entry's flags. A context opened by a
     * child ({@code verify}) is checked from outside, since a chain sees no step fail: the mount's
     * PID 1 must be in the container's pid namespace.
     */
    private static int procMount(int context, RootfsBuilder.ProcMount proc, boolean verify, String expectedPidNamespace) {
        int mount = MountApi.mount(context, "proc", attributes(proc.options()));
        if (verify) {
            String seen;
            try {
                seen = RootedFiles.readlinkAt(mount, "1/ns/pid");
            } catch (RuntimeException e) {
                FileDescriptors.closeQuietly(mount);
                throw e;
            }
            if (!seen.equals(expectedPidNamespace)) {
                FileDescriptors.closeQuietly(mount);
                throw new IllegalStateException("proc for " + proc.destination() + " shows pid namespace " + seen
                        + ", not the container's " + expectedPidNamespace);
            }
        }
        return mount;
    }

    /** This thread's user namespace is not the initial one (its uid_map is not the identity over all ids). */
    static boolean inUserNamespace() {
        try {
            return !Files.readString(Path.of("/proc/thread-self/uid_map")).trim().matches("0\\s+0\\s+4294967295");
        } catch (IOException e) {
            return false;
        }
    }

    private static int attributes(MountOptions options) {
        long f = options.flags();
        int attrs = 0;
        if ((f & Mounts.MS_RDONLY) != 0) attrs |= MountApi.MOUNT_ATTR_RDONLY;
        if ((f & Mounts.MS_NOSUID) != 0) attrs |= MountApi.MOUNT_ATTR_NOSUID;
        if ((f & Mounts.MS_NODEV) != 0) attrs |= MountApi.MOUNT_ATTR_NODEV;
        if ((f & Mounts.MS_NOEXEC) != 0) attrs |= MountApi.MOUNT_ATTR_NOEXEC;
        return attrs;
    }

    private static void writeSysctls(Spec spec) {
        Map<String, String> sysctl = spec.linux() == null ? null : spec.linux().sysctl();
        if (sysctl == null) {
            return;
        }
        for (Map.Entry<String, String> e : sysctl.entrySet()) {
            String key = e.getKey();
            if (key.contains("..") || key.startsWith("/")) {
                throw new IllegalArgumentException("linux.sysctl: invalid key \"" + key + "\"");
            }
            Path file = Path.of("/proc/sys", key.replace('.', '/'));
            try {
                Files.writeString(file, e.getValue());
            } catch (IOException ex) {
                throw new UncheckedIOException("linux.sysctl: " + key + ": " + ex.getMessage(), ex);
            }
        }
    }
}
