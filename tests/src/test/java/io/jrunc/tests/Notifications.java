package io.jrunc.tests;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import io.jrunc.bindings.FileDescriptors;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/** A seccomp agent's side of SCMP_ACT_NOTIFY for the tests: receive one notification, answer it (linux/seccomp.h). */
final class Notifications {
    private Notifications() {}

    // _IOWR('!', 0, struct seccomp_notif) and _IOWR('!', 1, struct seccomp_notif_resp)
    private static final long NOTIF_RECV = 0xc0502100L, NOTIF_SEND = 0xc0182101L;
    private static final long NOTIF_SIZE = 80, RESP_SIZE = 24;

    /** Waits for the next notification on {@code listener} and fails that syscall with {@code error} (a negative errno). */
    static int answerOne(int listener, int error) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment notif = arena.allocate(NOTIF_SIZE, 8);
            FileDescriptors.ioctl(listener, NOTIF_RECV, notif.address());
            long id = notif.get(JAVA_LONG, 0);
            int nr = notif.get(JAVA_INT, 16); // seccomp_data.nr, after id (8), pid (4), flags (4)
            MemorySegment resp = arena.allocate(RESP_SIZE, 8);
            resp.set(JAVA_LONG, 0, id);
            resp.set(JAVA_LONG, 8, 0);
            resp.set(JAVA_INT, 16, error);
            resp.set(JAVA_INT, 20, 0);
            FileDescriptors.ioctl(listener, NOTIF_SEND, resp.address());
            return nr;
        }
    }
}
