package io.jrunc.shim;

import io.jrunc.bindings.Errno;
import io.jrunc.bindings.ErrnoException;
import io.jrunc.bindings.Mounts;
import io.jrunc.runtime.init.MountOptions;
import io.jrunc.shim.TaskRequests;
import io.jrunc.ttrpc.Code;
import io.jrunc.ttrpc.RpcException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The rootfs mounts containerd's snapshotter prepared (an overlay, or a bind of a directory), mounted
 * in order at bundle/rootfs (or below it, at a mount's target), on the host, where containerd's
 * cleanup expects them: the host back end's container root, and the directory the VM back end's
 * virtiofsd shares into the guest as the container's root. Options are read as mount(8) options:
 * flags by name (runc's table), the rest as the filesystem's data (lowerdir=..., upperdir=...).
 */
public final class RootfsMounts {
    private RootfsMounts() {
    }

    /** Mounts them all, or, when one fails, unmounts those made and throws. Returns what was mounted, innermost last. */
    public static List<Path> mount(Path rootfs, List<TaskRequests.Mount> mounts) throws RpcException {
        List<Path> made = new ArrayList<>();
        try {
            for (int i = 0; i < mounts.size(); i++) {
                TaskRequests.Mount m = mounts.get(i);
                String where = "rootfs[" + i + "]";
                Path target = target(rootfs, m.target(), where);
                MountOptions options;
                try {
                    options = MountOptions.parse(m.options(), where);
                } catch (IllegalArgumentException e) {
                    throw new RpcException(Code.INVALID_ARGUMENT, e.getMessage());
                }
                try {
                    Files.createDirectories(target);
                    String type = m.type().isEmpty() || options.isBind() ? "none" : m.type();
                    long flags = options.flags();
                    if (m.type().equals("bind") && !options.isBind()) {
                        flags |= Mounts.MS_BIND;
                    }
                    Mounts.mount(m.source(), target.toString(), type, flags, options.data().isEmpty() ? null : options.data());
                    made.add(target);
                    if ((flags & Mounts.MS_BIND) != 0 && (options.remountFlags() & Mounts.MS_RDONLY) != 0) {
                        Mounts.mount("none", target.toString(), null,
                                Mounts.MS_BIND | Mounts.MS_REMOUNT | options.remountFlags(), null);
                    }
                } catch (ErrnoException | java.io.IOException e) {
                    throw new RpcException(Code.INVALID_ARGUMENT, where + ": mounting " + m.type() + " " + m.source()
                            + " on " + target + ": " + e.getMessage());
                }
            }
            return made;
        } catch (RpcException | RuntimeException e) {
            unmount(made);
            throw e;
        }
    }

    private static Path target(Path rootfs, String target, String where) throws RpcException {
        if (target == null || target.isEmpty() || target.equals("/")) {
            return rootfs;
        }
        Path relative = Path.of(target.startsWith("/") ? target.substring(1) : target).normalize();
        if (relative.startsWith("..")) {
            throw new RpcException(Code.INVALID_ARGUMENT, where + ".target: " + target + " leaves the rootfs");
        }
        return rootfs.resolve(relative);
    }

    /** Unmounts innermost (last made) first, retrying a busy one briefly, then detaching it. */
    public static void unmount(List<Path> made) {
        for (int i = made.size() - 1; i >= 0; i--) {
            String target = made.get(i).toString();
            for (int attempt = 0; ; attempt++) {
                try {
                    Mounts.umount(target, 0);
                    break;
                } catch (ErrnoException e) {
                    if (e.is(Errno.EINVAL) || e.is(Errno.ENOENT)) {
                        break; // not mounted (any more)
                    }
                    if (!e.is(Errno.EBUSY) || attempt >= 50) {
                        try {
                            Mounts.umount(target, Mounts.MNT_DETACH);
                        } catch (ErrnoException ignored) {
                            // nothing more to do
                        }
                        break;
                    }
                    try {
                        Thread.sleep(20);
                    } catch (InterruptedException ie) {
                        Thread.currentThread().interrupt();
                        break;
                    }
                }
            }
        }
    }
}
