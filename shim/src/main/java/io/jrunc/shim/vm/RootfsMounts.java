package io.jrunc.shim.vm;

import io.jrunc.bindings.ErrnoException;
import io.jrunc.bindings.Mounts;
import io.jrunc.runtime.init.MountOptions;
import io.jrunc.shim.TaskRequests;
import io.jrunc.ttrpc.Code;
import io.jrunc.ttrpc.RpcException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The rootfs mounts containerd's snapshotter prepared, mounted on the host at bundle/rootfs, in
 * order, as the runc shim mounts them: that directory is what the pod's virtiofsd then shares into
 * the guest as the container's root, and where containerd's cleanup expects them. Options are
 * mount(8)'s (flags by name, the rest the filesystem's data: lowerdir=..., upperdir=...).
 */
final class RootfsMounts {
    private RootfsMounts() {
    }

    /** Mounts them all, or unmounts those made and throws. What was mounted, innermost last. */
    static List<Path> mount(Path rootfs, List<TaskRequests.Mount> mounts) throws RpcException {
        List<Path> made = new ArrayList<>();
        try {
            for (int i = 0; i < mounts.size(); i++) {
                TaskRequests.Mount m = mounts.get(i);
                String where = "rootfs[" + i + "]";
                MountOptions options;
                try {
                    options = MountOptions.parse(m.options(), where);
                } catch (IllegalArgumentException e) {
                    throw new RpcException(Code.INVALID_ARGUMENT, e.getMessage());
                }
                boolean bind = options.isBind() || m.type().equals("bind");
                long flags = options.flags() | (bind ? Mounts.MS_BIND : 0);
                try {
                    Files.createDirectories(rootfs);
                    Mounts.mount(m.source(), rootfs.toString(), bind || m.type().isEmpty() ? "none" : m.type(), flags,
                            options.data().isEmpty() ? null : options.data());
                    made.add(rootfs);
                    if (bind && (options.remountFlags() & Mounts.MS_RDONLY) != 0) {
                        Mounts.mount("none", rootfs.toString(), null, Mounts.MS_BIND | Mounts.MS_REMOUNT | options.remountFlags(), null);
                    }
                } catch (ErrnoException | IOException e) {
                    throw new RpcException(Code.INVALID_ARGUMENT, where + ": mounting " + m.type() + " " + m.source()
                            + " on " + rootfs + ": " + e.getMessage());
                }
            }
            return made;
        } catch (RpcException | RuntimeException e) {
            unmount(made);
            throw e;
        }
    }

    /** Unmounts innermost first; a target no longer mounted is fine. */
    static void unmount(List<Path> made) {
        for (int i = made.size() - 1; i >= 0; i--) {
            try {
                Mounts.umount(made.get(i).toString(), Mounts.MNT_DETACH);
            } catch (ErrnoException e) {
                // already gone (EINVAL): nothing to undo
            }
        }
    }
}
