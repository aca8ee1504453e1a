package io.jrunc.runtime.init;

import static io.jrunc.bindings.Mounts.*;

import io.jrunc.bindings.Errno;
import io.jrunc.bindings.ErrnoException;
import io.jrunc.bindings.Mounts;
import io.jrunc.bindings.StatFs;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The flags a bind mount's remount cannot drop. A mount namespace made inside a user namespace copies
 * its parent's mounts with their read-only, nodev, nosuid, noexec and atime flags locked (the kernel's
 * MNT_LOCK_*): a remount of a bind of such a mount that leaves one of them out fails with EPERM, as
 * it does for a rootless container binding /sys, /dev/null or a nosuid volume. The rule is runc's
 * (rootfs_linux.go): remount with the flags the config asks for; on EPERM read the source's flags with
 * statfs; if the config asked to clear a flag the source has locked, refuse, naming the mount;
 * otherwise remount again with the source's lockable flags kept.
 */
final class LockedFlags {
    private LockedFlags() {}

    static final long ATIME = MS_NOATIME | MS_RELATIME | MS_STRICTATIME | MS_NODIRATIME;
    static final long LOCKABLE = MS_RDONLY | MS_NODEV | MS_NOEXEC | MS_NOSUID | ATIME;

    /**
     * Remounts the bind mount at {@code dest} with {@code flags}, keeping the flags the kernel locked
     * on {@code source}.
     *
     * @param where   the config entry, for the refusal ("mounts[3]")
     * @param cleared the flags the entry's options clear ({@link MountOptions#clearedFlags})
     */
    static void remountBind(String where, String source, Path dest, long flags, long cleared) {
        long remount = MS_BIND | MS_REMOUNT | flags;
        try {
            Mounts.mount(null, dest.toString(), null, remount, null);
            return;
        } catch (ErrnoException e) {
            if (!e.is(Errno.EPERM)) {
                throw e;
            }
        }
        long sourceFlags = StatFs.mountFlags(source);
        long cannotClear = sourceFlags & cleared & LOCKABLE;
        if (cannotClear != 0) {
            throw new IllegalArgumentException(where + ": cannot clear locked flags " + names(cannotClear)
                    + " of the bind mount of " + source + " on " + dest
                    + " (the source's mount comes from a more privileged user namespace, which locks them)");
        }
        if ((flags & ATIME) != 0 && (flags & ATIME) != (sourceFlags & ATIME)) {
            throw new IllegalArgumentException(where + ": cannot change locked atime flags " + names(sourceFlags & ATIME)
                    + " of the bind mount of " + source + " on " + dest);
        }
        try {
            Mounts.mount(null, dest.toString(), null, remount | (sourceFlags & LOCKABLE), null);
        } catch (ErrnoException e) {
            throw new ErrnoException("remount", e.errno(), dest + " with locked flags "
                    + names(sourceFlags & LOCKABLE) + " re-applied");
        }
    }

    /** The flags as mount(8) options ("ro,nosuid,nodev"). */
    static String names(long flags) {
        List<String> out = new ArrayList<>();
        if ((flags & MS_RDONLY) != 0) out.add("ro");
        if ((flags & MS_NOSUID) != 0) out.add("nosuid");
        if ((flags & MS_NODEV) != 0) out.add("nodev");
        if ((flags & MS_NOEXEC) != 0) out.add("noexec");
        if ((flags & MS_NOATIME) != 0) out.add("noatime");
        if ((flags & MS_NODIRATIME) != 0) out.add("nodiratime");
        if ((flags & MS_RELATIME) != 0) out.add("relatime");
        if ((flags & MS_STRICTATIME) != 0) out.add("strictatime");
        return String.join(",", out);
    }
}
