package io.jrunc.bindings;

import java.lang.foreign.Arena;

/**
 * The file-descriptor based mount API (fsopen/fsconfig/fsmount/move_mount, Linux 5.2+). The runtime
 * needs it for one thing the classic mount(2) cannot do from a JVM thread: a procfs for the
 * container's pid namespace. procfs takes its pid namespace from the mounting task, and no JVM thread
 * can live in a new pid namespace, so the mount is built on the host with the "pidns" parameter naming
 * the container's namespace, then attached inside the container's mount namespace.
 * System call numbers are in {@link SyscallNumbers} (428 up, shared by every architecture).
 */
public final class MountApi {
    private MountApi() {}

    private static final int FSOPEN_CLOEXEC = 1, FSMOUNT_CLOEXEC = 1;
    private static final int FSCONFIG_SET_FLAG = 0, FSCONFIG_SET_STRING = 1, FSCONFIG_CMD_CREATE = 6;
    private static final int MOVE_MOUNT_F_EMPTY_PATH = 4;
    public static final int MOUNT_ATTR_RDONLY = 1, MOUNT_ATTR_NOSUID = 2, MOUNT_ATTR_NODEV = 4,
            MOUNT_ATTR_NOEXEC = 8;

    /**
     * A detached mount of {@code fsType} configured with string parameters (a null value sets a flag
     * parameter); returns the mount's descriptor, to be attached with {@link #moveMount}.
     */
    public static int create(String fsType, java.util.Map<String, String> parameters, int attributes) {
        try (Arena arena = Arena.ofConfined()) {
            int fs = (int) Syscalls.call("fsopen", fsType, SyscallNumbers.FSOPEN, arena.allocateFrom(fsType).address(), FSOPEN_CLOEXEC);
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
                return (int) Syscalls.call("fsmount", fsType, SyscallNumbers.FSMOUNT, fs, FSMOUNT_CLOEXEC, attributes);
            } finally {
                FileDescriptors.closeQuietly(fs);
            }
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
