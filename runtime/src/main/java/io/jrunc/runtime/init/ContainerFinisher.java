package io.jrunc.runtime.init;

import io.jrunc.bindings.Errno;
import io.jrunc.bindings.ErrnoException;
import io.jrunc.bindings.FileDescriptors;
import io.jrunc.bindings.LibcChain;
import io.jrunc.bindings.Processes;
import io.jrunc.bindings.StatFs;
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
 * <p>The "pidns" parameter of procfs needs Linux 6.18 or later. On older kernels a libc-only child
 * created in the container's pid namespace mounts procfs instead (LibcChain), and the mount is
 * verified from outside: a procfs whose PID 1 is in the container's pid namespace.
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
        boolean viaChain = false;
        try {
            // Read from the host while the child waits at the gate: its mount namespace, paths in its root.
            MountOrder order = MountOrder.plan(Files.readAllLines(Path.of("/proc/" + pid + "/mountinfo")), prepared);
            try {
                for (int i = 0; i < prepared.procMounts().size(); i++) {
                    contexts.add(MountApi.configure("proc", Map.of("source", "proc", "pidns", pidns)));
                }
            } catch (ErrnoException e) {
                if (!e.is(Errno.EINVAL)) {
                    throw e;
                }
                // procfs without the "pidns" parameter (Linux before 6.18): a task inside the pid
                // namespace must mount it. This thread joins the pid namespace for its children and
                // a libc-only child does the mount (LibcChain); the result is checked below.
                viaChain = true;
                contexts.forEach(FileDescriptors::closeQuietly);
                contexts.clear();
            }
            boolean userns = inUserNamespace() || !Files.readSymbolicLink(Path.of("/proc/" + pid + "/ns/user"))
                    .equals(Files.readSymbolicLink(Path.of("/proc/thread-self/ns/user")));
            if (viaChain && userns) {
                throw new IllegalStateException("procfs cannot be mounted for a container in a user namespace on this"
                        + " kernel: it needs procfs's pidns= parameter (Linux 6.18), since inside a user namespace the"
                        + " kernel mounts procfs only where one is fully visible");
            }
            if (userns) {
                // In a mount namespace owned by a user namespace other than the initial one, the kernel
                // mounts procfs only where a procfs is already fully visible ("mount too revealing"
                // otherwise), and the container's holds none after pivot_root: make the mounts here,
                // in the runtime's namespace, which has the host's /proc, and attach them from inside.
                for (int i = 0; i < contexts.size(); i++) {
                    premade.add(MountApi.mount(contexts.get(i), "proc", attributes(prepared.procMounts().get(i).options())));
                }
            }
            List<String> kinds = viaChain ? List.of("ipc", "uts", "net", "pid", "mnt") : List.of("ipc", "uts", "net", "mnt");
            try (InitNamespaces namespaces = InitNamespaces.open(pid, kinds)) {
                namespaces.join();
            }
            boolean chain = viaChain;
            order.apply(new MountOrder.ProcMaker() {
                @Override
                public int make(int index) {
                    if (chain) {
                        return -1;
                    }
                    if (premade.isEmpty()) {
                        return MountApi.mount(contexts.get(index), "proc", attributes(prepared.procMounts().get(index).options()));
                    }
                    return premade.set(index, -1); // MountOrder owns (and closes) it from here
                }

                @Override
                public void attach(int index) {
                    try {
                        mountFromInside(prepared.procMounts().get(index), expectedPidNamespace);
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                }
            });
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

    /** This thread's user namespace is not the initial one (its uid_map is not the identity over all ids). */
    static boolean inUserNamespace() {
        try {
            return !Files.readString(Path.of("/proc/thread-self/uid_map")).trim().matches("0\\s+0\\s+4294967295");
        } catch (IOException e) {
            return false;
        }
    }

    private static final long PROC_SUPER_MAGIC = 0x9fa0;

    /** mount(2) of procfs by a child in the container's pid namespace, verified from outside. */
    private static void mountFromInside(RootfsBuilder.ProcMount proc, String expectedPidNamespace) throws IOException {
        MountOptions o = proc.options();
        try (LibcChain chain = new LibcChain()) {
            chain.call("mount", chain.string("proc"), chain.string(proc.destination()), chain.string("proc"),
                    o.flags(), o.data().isEmpty() ? 0 : chain.string(o.data()));
            int child = chain.run(LibcChain.CLONE_VM | LibcChain.CLONE_VFORK);
            ChildWaits.waitpid(child, Processes.__WALL);
        }
        if (StatFs.of(proc.destination()).type() != PROC_SUPER_MAGIC) {
            throw new IllegalStateException("mounting proc at " + proc.destination() + " failed");
        }
        String seen = Files.readSymbolicLink(Path.of(proc.destination(), "1/ns/pid")).toString();
        if (!seen.equals(expectedPidNamespace)) {
            throw new IllegalStateException("proc at " + proc.destination() + " shows pid namespace " + seen
                    + ", not the container's " + expectedPidNamespace);
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
