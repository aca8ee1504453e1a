package io.jrunc.bindings;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

/**
 * statfs(2): the filesystem type and the mount flags of the mount holding a path. Works after the
 * calling thread changed its root, where /proc/self/mountinfo may describe another task's view.
 * struct statfs on 64-bit Linux: f_type at 0, f_flags at 80 (ST_* values).
 */
public final class StatFs {
    private StatFs() {}

    public static final long ST_RDONLY = 1, ST_NOSUID = 2, ST_NODEV = 4, ST_NOEXEC = 8, ST_SYNCHRONOUS = 16,
            ST_MANDLOCK = 64, ST_NOATIME = 1024, ST_NODIRATIME = 2048, ST_RELATIME = 4096;
    public static final long CGROUP2_SUPER_MAGIC = 0x63677270L, TMPFS_MAGIC = 0x01021994L;

    // struct statfs (literals, checked against the generated layout by FacadeMatchesGeneratedTest)
    static final long STATFS_SIZE = 120, F_TYPE = 0, F_FLAGS = 80;

    private static final NativeFunction STATFS = Downcall.function("statfs",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));

    public record Info(long type, long flags) {}

    public static Info of(String path) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment buf = arena.allocate(STATFS_SIZE, 8);
            Calls.checked(STATFS, "statfs", path, path, buf);
            return new Info(buf.get(JAVA_LONG, F_TYPE), buf.get(JAVA_LONG, F_FLAGS));
        }
    }

    /** The ST_* flags of the mount at {@code path} as MS_* flags for a remount. */
    public static long mountFlags(String path) {
        long st = of(path).flags();
        long ms = 0;
        if ((st & ST_RDONLY) != 0) ms |= Mounts.MS_RDONLY;
        if ((st & ST_NOSUID) != 0) ms |= Mounts.MS_NOSUID;
        if ((st & ST_NODEV) != 0) ms |= Mounts.MS_NODEV;
        if ((st & ST_NOEXEC) != 0) ms |= Mounts.MS_NOEXEC;
        if ((st & ST_NOATIME) != 0) ms |= Mounts.MS_NOATIME;
        if ((st & ST_NODIRATIME) != 0) ms |= Mounts.MS_NODIRATIME;
        if ((st & ST_RELATIME) != 0) ms |= Mounts.MS_RELATIME;
        return ms;
    }
}
