package io.jrunc.runtime.init;

import io.jrunc.bindings.FileDescriptors;
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
 * (/proc/PID/ns/pid), then attached from a thread that joined the container's namespaces, over the
 * small tmpfs that held the gate. With /proc in place: masked and read-only paths, the read-only
 * root, and sysctls (written in the container's network and IPC namespaces, which decide what
 * /proc/sys/net and /proc/sys/kernel/shm* mean).
 *
 * <p>The "pidns" parameter of procfs needs Linux 6.18 or later (this project's hosts have it);
 * docs/ARCHITECTURE.md records the fallback planned for older kernels.
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

    private static void run(Spec spec, int pid, RootfsBuilder.Prepared prepared) {
        FsContext.unshare();
        String pidns = "/proc/" + pid + "/ns/pid";
        List<Integer> procFds = new ArrayList<>();
        try {
            for (RootfsBuilder.ProcMount proc : prepared.procMounts()) {
                procFds.add(MountApi.create("proc", Map.of("source", "proc", "pidns", pidns), attributes(proc.options())));
            }
            try (InitNamespaces namespaces = InitNamespaces.open(pid, List.of("ipc", "uts", "net", "mnt"))) {
                namespaces.join();
            }
            Mounts.umount(prepared.procMounts().getFirst().destination(), Mounts.MNT_DETACH);
            for (int i = 0; i < procFds.size(); i++) {
                MountApi.moveMount(procFds.get(i), prepared.procMounts().get(i).destination());
            }
            RootfsBuilder.finish(spec);
            writeSysctls(spec);
        } finally {
            procFds.forEach(FileDescriptors::closeQuietly);
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
