package io.jrunc.bindings;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.invoke.MethodHandle;

/** mount(2), umount2(2) and pivot_root(2). Flag values from include/uapi/linux/mount.h. */
public final class Mounts {
    private Mounts() {}

    public static final long MS_RDONLY = 1, MS_NOSUID = 2, MS_NODEV = 4, MS_NOEXEC = 8, MS_SYNCHRONOUS = 16,
            MS_REMOUNT = 32, MS_MANDLOCK = 64, MS_DIRSYNC = 128, MS_NOSYMFOLLOW = 256, MS_NOATIME = 1024,
            MS_NODIRATIME = 2048, MS_BIND = 4096, MS_MOVE = 8192, MS_REC = 16384, MS_SILENT = 32768,
            MS_UNBINDABLE = 1 << 17, MS_PRIVATE = 1 << 18, MS_SLAVE = 1 << 19, MS_SHARED = 1 << 20,
            MS_RELATIME = 1 << 21, MS_STRICTATIME = 1 << 24, MS_LAZYTIME = 1 << 25;
    public static final int MNT_FORCE = 1, MNT_DETACH = 2, MNT_EXPIRE = 4, UMOUNT_NOFOLLOW = 8;

    private static final NativeFunction MOUNT = Downcall.function("mount",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS, JAVA_LONG, ADDRESS));
    private static final NativeFunction UMOUNT2 = Downcall.function("umount2",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT));

    /** mount(2). {@code source}, {@code type} and {@code data} may be null. */
    public static void mount(String source, String target, String type, long flags, String data) {
        Calls.checked(MOUNT, "mount", (source == null ? "" : source + " to ") + target,
                source, target, type, flags, data);
    }

    public static void umount(String target, int flags) {
        Calls.checked(UMOUNT2, "umount2", target, target, flags);
    }

    /** pivot_root(2); glibc has no wrapper. */
    public static void pivotRoot(String newRoot, String putOld) {
        try (Arena arena = Arena.ofConfined()) {
            Syscalls.call("pivot_root", newRoot, SyscallNumbers.PIVOT_ROOT,
                    arena.allocateFrom(newRoot).address(), arena.allocateFrom(putOld).address());
        }
    }
}
