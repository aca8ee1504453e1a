package io.jrunc.bindings;

import java.lang.foreign.Arena;

/**
 * keyctl(2) for the one thing a runtime does with keys: give the container a new session keyring, so
 * it cannot see or use the keys of the session that started the runtime (runc does the same unless
 * --no-new-keyring). The session keyring belongs to the calling thread's credentials, so a container
 * thread can join a new one and the process it spawns inherits it.
 */
public final class Keyrings {
    private Keyrings() {}

    private static final int KEYCTL_JOIN_SESSION_KEYRING = 1;

    /** Joins a new session keyring named {@code name} (runc: "_ses.ID"); returns its serial. */
    public static int joinNewSession(String name) {
        try (Arena arena = Arena.ofConfined()) {
            return (int) Syscalls.call("keyctl", name, SyscallNumbers.KEYCTL, KEYCTL_JOIN_SESSION_KEYRING,
                    arena.allocateFrom(name).address());
        }
    }
}
