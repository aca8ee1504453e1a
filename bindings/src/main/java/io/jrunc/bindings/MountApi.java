package io.jrunc.bindings;

import java.lang.foreign.Arena;

/**
 * The file-descriptor based mount API (fsopen/fsconfig/fsmount/move_mount, Linux 5.2+). The runtime
 * needs it for one thing the classic mount(2) cannot do from a JVM thread: a procfs for the
 * container's pid namespace. procfs takes its pid namespace from the mounting task, and no JVM thread
 * can live in a new pid namespace, so the mount is built on the host with the "pidns" parameter naming
 * the container's namespace (before Linux 6.18: from a context a task in that namespace opened, see
 * {@link #configure(int, String, java.util.Map)}), then attached inside the container's mount namespace.
 * System call numbers are in {@link SyscallNumbers} (428 up, shared by every architecture).
 */
public final class MountApi {
    private MountApi() {}

    public static final int FSOPEN_CLOEXEC = 1;
    private static final int FSMOUNT_CLOEXEC = 1;
    private static final int FSCONFIG_SET_FLAG = 0, FSCONFIG_SET_STRING = 1, FSCONFIG_CMD_CREATE = 6;
    private static final int MOVE_MOUNT_F_EMPTY_PATH = 4;
    public static final int MOUNT_ATTR_RDONLY = 1, MOUNT_ATTR_NOSUID = 2, MOUNT_ATTR_NODEV = 4,
            MOUNT_ATTR_NOEXEC = 8;

    /**
     * A detached mount of {@code fsType} configured with string parameters (a null value sets a flag
     * parameter); returns the mount's descriptor, to be attached with {@link #moveMount}.
     */
    public static int create(String fsType, java.util.Map<String, String> parameters, int attributes) {
        int fs = configure(fsType, parameters);
        try {
            return mount(fs, fsType, attributes);
        } finally {
            FileDescriptors.closeQuietly(fs);
        }
    }

    /**
     * A filesystem context of {@code fsType} with its superblock made ({@code FSCONFIG_CMD_CREATE}), not
     * yet mounted: {@link #mount} makes the mount object later. A mount's ID is given when the mount
     * object is made, and on Linux 6.8 and later /proc/PID/mountinfo lists mounts by that ID, so a caller
     * that must keep an order makes the object at its turn.
     */
    public static int configure(String fsType, java.util.Map<String, String> parameters) {
        int fs;
        try (Arena arena = Arena.ofConfined()) {
            fs = (int) Syscalls.call("fsopen", fsType, SyscallNumbers.FSOPEN, arena.allocateFrom(fsType).address(), FSOPEN_CLOEXEC);
        }
        return configure(fs, fsType, parameters);
    }

    /**
     * As {@link #configure(String, java.util.Map)}, for a context {@code fs} opened elsewhere (by a task
     * in another pid namespace, whose procfs it is): the parameters are set and the superblock made by
     * the calling thread. Takes {@code fs}: closed if this fails.
     */
    public static int configure(int fs, String fsType, java.util.Map<String, String> parameters) {
        try (Arena arena = Arena.ofConfined()) {
            try {
                for (var p : parameters.entrySet()) {
                    long key = arena.allocateFrom(p.getKey()).address();
                    if (p.getValue() == null) {
                        Syscalls.call("fsconfig", fsType + " " + p.getKey(), SyscallNumbers.FSCONFIG, fs, FSCONFIG_SET_FLAG, key, 0, 0);
                    } else {
                        Syscalls.call("fsconfig", fsType + " " + p.getKey() + "=" + p.getValue(), SyscallNumbers.FSCONFIG, fs,
                                FSCONFIG_SET_STRING, key, arena.allocateFrom(p.getValue()).address(), 0);
                    }
                }
                Syscalls.call("fsconfig", fsType + " create", SyscallNumbers.FSCONFIG, fs, FSCONFIG_CMD_CREATE, 0, 0, 0);
                return fs;
            } catch (RuntimeException e) {
                FileDescriptors.closeQuietly(fs);
                throw e;
            }
        }
    }

    /** The detached mount of a {@link #configure configured} context, close-on-exec. */
    public static int mount(int context, String fsType, int attributes) {
        return (int) Syscalls.call("fsmount", fsType, SyscallNumbers.FSMOUNT, context, FSMOUNT_CLOEXEC, attributes);
    }

    private static final int OPEN_TREE_CLONE = 1, AT_EMPTY_PATH = 0x1000, AT_RECURSIVE = 0x8000;

    /**
     * A detached copy of one mount, close-on-exec: the mount at {@code path} or, with a null path, the
     * mount {@code fd} (an O_PATH descriptor) refers to, which reaches it even where a later mount
     * covers it. Not recursive: the copy has none of the original's submounts. The copy gets a new
     * mount ID, keeps the original's flags and joins its peer group or master (fs/namespace.c
     * clone_mnt). An unbindable mount cannot be copied (EINVAL).
     */
    public static int cloneMount(int fd, String path) {
        return cloneMount(fd, path, 0);
    }

    /**
     * As {@link #cloneMount}, with every mount below it (AT_RECURSIVE). Inside a user namespace the
     * kernel copies a mount whose submounts it has locked (those inherited from a more privileged
     * namespace) only so, together: alone it would reveal what they cover (EINVAL).
     */
    public static int cloneTree(int fd, String path) {
        return cloneMount(fd, path, AT_RECURSIVE);
    }

    private static int cloneMount(int fd, String path, int extra) {
        try (Arena arena = Arena.ofConfined()) {
            return (int) Syscalls.call("open_tree", path == null ? "fd " + fd : path, SyscallNumbers.OPEN_TREE,
                    path == null ? fd : FileDescriptors.AT_FDCWD, arena.allocateFrom(path == null ? "" : path).address(),
                    OPEN_TREE_CLONE | FileDescriptors.O_CLOEXEC | (path == null ? AT_EMPTY_PATH : 0) | extra);
        }
    }

    public static final int MOUNT_ATTR_IDMAP = 0x00100000, MOUNT_ATTR_SIZE_VER0 = 32;
    /** struct mount_attr (linux/mount.h): four 64-bit members. */
    static final long ATTR_SIZE = 32, ATTR_SET = 0, ATTR_CLR = 8, ATTR_PROPAGATION = 16, ATTR_USERNS_FD = 24;

    /**
     * mount_setattr(2) with MOUNT_ATTR_IDMAP on the detached mount {@code mountFd} (and, when
     * {@code recursive}, its submounts): file owners are shown through the mount as {@code usernsFd}'s
     * user namespace maps them. The kernel answers EINVAL for a filesystem without idmapped mounts, a
     * mount that is attached or already idmapped; {@code subject} names the mount in the error.
     */
    public static void idmap(int mountFd, int usernsFd, boolean recursive, String subject) {
        try (Arena arena = Arena.ofConfined()) {
            java.lang.foreign.MemorySegment attr = arena.allocate(ATTR_SIZE, 8);
            attr.set(java.lang.foreign.ValueLayout.JAVA_LONG, ATTR_SET, MOUNT_ATTR_IDMAP);
            attr.set(java.lang.foreign.ValueLayout.JAVA_LONG, ATTR_USERNS_FD, usernsFd);
            Syscalls.call("mount_setattr", subject, SyscallNumbers.MOUNT_SETATTR, mountFd, arena.allocateFrom("").address(),
                    AT_EMPTY_PATH | (recursive ? AT_RECURSIVE : 0), attr.address(), MOUNT_ATTR_SIZE_VER0);
        }
    }

    /** Attaches the detached mount {@code mountFd} at {@code target} (resolved by the calling thread). */
    public static void moveMount(int mountFd, String target) {
        try (Arena arena = Arena.ofConfined()) {
            Syscalls.call("move_mount", target, SyscallNumbers.MOVE_MOUNT, mountFd, arena.allocateFrom("").address(),
                    FileDescriptors.AT_FDCWD, arena.allocateFrom(target).address(), MOVE_MOUNT_F_EMPTY_PATH);
        }
    }
}
