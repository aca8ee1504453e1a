package io.jrunc.bindings;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;

/**
 * File calls relative to a directory descriptor, and paths resolved inside a root: openat2(2) with
 * RESOLVE_IN_ROOT resolves every component as if the descriptor were "/" (an absolute symbolic link
 * starts again at it, ".." stops at it), atomically against a tree that changes meanwhile, which a
 * lookup in Java followed by an open could not be. Each call is the raw system call (statx and
 * renameat2 have no wrapper in older glibc) and throws {@link ErrnoException} with its errno.
 */
public final class RootedFiles {
    private RootedFiles() {}

    // include/uapi/linux/openat2.h
    public static final long RESOLVE_NO_XDEV = 0x01, RESOLVE_NO_MAGICLINKS = 0x02, RESOLVE_NO_SYMLINKS = 0x04,
            RESOLVE_BENEATH = 0x08, RESOLVE_IN_ROOT = 0x10;
    // include/uapi/linux/fcntl.h
    public static final int AT_SYMLINK_NOFOLLOW = 0x100, AT_REMOVEDIR = 0x200, AT_EMPTY_PATH = 0x1000;
    public static final int RENAME_NOREPLACE = 1;
    public static final int S_IFMT = 0170000, S_IFREG = 0100000, S_IFDIR = 0040000, S_IFLNK = 0120000;
    // include/uapi/linux/stat.h: STATX_BASIC_STATS; struct statx offsets
    private static final int STATX_BASIC_STATS = 0x7ff;
    private static final long STATX_SIZE = 256, STX_UID = 20, STX_GID = 24, STX_MODE = 28, STX_FILE_SIZE = 40,
            STX_MTIME = 112;
    private static final int PATH_MAX = 4096;

    /** What statx says of a file: st_mode (type and permissions), owner, size, modification time. */
    public record Stat(int mode, long uid, long gid, long size, long mtimeSeconds, int mtimeNanos) {
        public int type() {
            return mode & S_IFMT;
        }

        public boolean isDirectory() {
            return type() == S_IFDIR;
        }

        public boolean isRegular() {
            return type() == S_IFREG;
        }

        public boolean isSymlink() {
            return type() == S_IFLNK;
        }
    }

    /**
     * openat2(dirFd, path, how) with {@code resolve} flags; close-on-exec is always added. Returns the
     * new descriptor.
     */
    public static int open(int dirFd, String path, int flags, int mode, long resolve) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment how = arena.allocate(24, 8); // struct open_how {u64 flags, mode, resolve}
            how.set(JAVA_LONG, 0, (flags | FileDescriptors.O_CLOEXEC) & 0xffffffffL);
            how.set(JAVA_LONG, 8, mode);
            how.set(JAVA_LONG, 16, resolve);
            return (int) Syscalls.call("openat2", path, SyscallNumbers.OPENAT2, dirFd,
                    arena.allocateFrom(path).address(), how.address(), 24);
        }
    }

    /** {@code path} inside the root {@code rootFd}: {@link #open} with RESOLVE_IN_ROOT and no magic links. */
    public static int openInRoot(int rootFd, String path, int flags, int mode) {
        return open(rootFd, path.isEmpty() ? "." : path, flags, mode, RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS);
    }

    /** openat(2) of one name in a directory, close-on-exec. */
    public static int openAt(int dirFd, String name, int flags, int mode) {
        try (Arena arena = Arena.ofConfined()) {
            return (int) Syscalls.call("openat", name, SyscallNumbers.OPENAT, dirFd,
                    arena.allocateFrom(name).address(), flags | FileDescriptors.O_CLOEXEC, mode);
        }
    }

    public static void mkdirAt(int dirFd, String name, int mode) {
        try (Arena arena = Arena.ofConfined()) {
            Syscalls.call("mkdir", name, SyscallNumbers.MKDIRAT, dirFd, arena.allocateFrom(name).address(), mode);
        }
    }

    public static void symlinkAt(String target, int dirFd, String name) {
        try (Arena arena = Arena.ofConfined()) {
            Syscalls.call("symlink", name, SyscallNumbers.SYMLINKAT, arena.allocateFrom(target).address(), dirFd,
                    arena.allocateFrom(name).address());
        }
    }

    /** The target of the symbolic link {@code name} in {@code dirFd} ("" with an O_PATH descriptor of the link). */
    public static String readlinkAt(int dirFd, String name) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment buf = arena.allocate(PATH_MAX);
            long n = Syscalls.call("readlink", name, SyscallNumbers.READLINKAT, dirFd,
                    arena.allocateFrom(name).address(), buf.address(), PATH_MAX);
            return new String(buf.asSlice(0, n).toArray(JAVA_BYTE), StandardCharsets.UTF_8);
        }
    }

    public static void unlinkAt(int dirFd, String name, int flags) {
        try (Arena arena = Arena.ofConfined()) {
            Syscalls.call("unlink", name, SyscallNumbers.UNLINKAT, dirFd, arena.allocateFrom(name).address(), flags);
        }
    }

    /** renameat2(2); {@code flags} 0 replaces what is at the new name (as rename does). */
    public static void renameAt(int oldDirFd, String oldName, int newDirFd, String newName, int flags) {
        try (Arena arena = Arena.ofConfined()) {
            Syscalls.call("rename", newName, SyscallNumbers.RENAMEAT2, oldDirFd,
                    arena.allocateFrom(oldName).address(), newDirFd, arena.allocateFrom(newName).address(), flags);
        }
    }

    /** fchownat(2); with AT_SYMLINK_NOFOLLOW a link's own owner, with AT_EMPTY_PATH and "" the descriptor's file. */
    public static void chownAt(int dirFd, String name, long uid, long gid, int flags) {
        try (Arena arena = Arena.ofConfined()) {
            Syscalls.call("chown", name, SyscallNumbers.FCHOWNAT, dirFd, arena.allocateFrom(name).address(), uid,
                    gid, flags);
        }
    }

    /** fchmod(2): only the permission bits, 07777. */
    public static void chmod(int fd, int mode) {
        Syscalls.call("chmod", "fd " + fd, SyscallNumbers.FCHMOD, fd, mode & 07777);
    }

    /** utimensat(2): access and modification time both set to the given time. */
    public static void setTimesAt(int dirFd, String name, long seconds, int nanos, int flags) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment times = arena.allocate(32, 8); // struct timespec[2] {i64 sec, i64 nsec}
            times.set(JAVA_LONG, 0, seconds);
            times.set(JAVA_LONG, 8, nanos);
            times.set(JAVA_LONG, 16, seconds);
            times.set(JAVA_LONG, 24, nanos);
            Syscalls.call("utimensat", name, SyscallNumbers.UTIMENSAT, dirFd, arena.allocateFrom(name).address(),
                    times.address(), flags);
        }
    }

    /** statx(2) of {@code name} in {@code dirFd} (with AT_EMPTY_PATH and "", the descriptor's own file). */
    public static Stat statAt(int dirFd, String name, int flags) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment buf = arena.allocate(STATX_SIZE, 8);
            Syscalls.call("statx", name, SyscallNumbers.STATX, dirFd, arena.allocateFrom(name).address(), flags,
                    STATX_BASIC_STATS, buf.address());
            return new Stat(Short.toUnsignedInt(buf.get(JAVA_SHORT, STX_MODE)), Integer.toUnsignedLong(buf.get(JAVA_INT, STX_UID)),
                    Integer.toUnsignedLong(buf.get(JAVA_INT, STX_GID)), buf.get(JAVA_LONG, STX_FILE_SIZE),
                    buf.get(JAVA_LONG, STX_MTIME), buf.get(JAVA_INT, STX_MTIME + 8));
        }
    }

    /** statx of what the descriptor refers to (an O_PATH descriptor of a link: the link itself). */
    public static Stat stat(int fd) {
        return statAt(fd, "", AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW);
    }
}
