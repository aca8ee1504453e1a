package io.jrunc.bindings;

import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * Credentials of the calling thread only. glibc's setresuid/setresgid/setgroups broadcast the change
 * to every thread of the process (POSIX says credentials are per process), which would drop the whole
 * JVM to the container's user; the raw system calls change just the calling thread, and a process
 * spawned by that thread inherits them (docs/runtime.md).
 */
public final class ThreadCredentials {
    private ThreadCredentials() {}

    public static void setresuid(int ruid, int euid, int suid) {
        Syscalls.call("setresuid", Integer.toString(euid), SyscallNumbers.SETRESUID, ruid, euid, suid);
    }

    public static void setresgid(int rgid, int egid, int sgid) {
        Syscalls.call("setresgid", Integer.toString(egid), SyscallNumbers.SETRESGID, rgid, egid, sgid);
    }

    public static void setgroups(int[] gids) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment list = arena.allocate(JAVA_INT, Math.max(1, gids.length));
            for (int i = 0; i < gids.length; i++) {
                list.setAtIndex(JAVA_INT, i, gids[i]);
            }
            Syscalls.call("setgroups", null, SyscallNumbers.SETGROUPS, gids.length, list.address());
        }
    }
}
