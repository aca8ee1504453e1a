package io.jrunc.runtime.init;

import io.jrunc.bindings.FileDescriptors;
import io.jrunc.bindings.PosixSpawn;

/**
 * Spawns the container's program from the calling (prepared) thread with posix_spawn, behind a gate:
 * the child's last file action opens a FIFO for writing, which blocks until the runtime opens it for
 * reading (exec fifo, process-model.md section 2). The write end is close-on-exec, so the reader sees
 * EOF exactly when the program has been exec'd.
 *
 * <p>File actions, in order: the pty slave as stdin/stdout/stderr (opened after setsid and without
 * O_NOCTTY, so it becomes the controlling terminal), or the request's explicit streams; preserved descriptors 3..3+N-1 kept open; the
 * working directory; every other descriptor closed (none of the JVM's reach the container); the gate;
 * the working directory again (the first chdir reports a missing or forbidden one at create, the second
 * lands in the mount that is there once the gate opens).
 * The gate descriptor must be opened at exactly the lowest free number, because glibc dup2()s it
 * otherwise and dup2 drops close-on-exec.
 */
public final class ProcessLauncher {
    private ProcessLauncher() {}

    /**
     * How the child reaches the gate FIFO: by a path inside its root ({@code opathFd} -1), which it
     * opens O_PATH at {@link #gateFd} and then, by the same path, for writing (RootfsBuilder.prepare
     * says why that survives a restarted open); or through an O_PATH descriptor of the runtime's,
     * reopened via /proc/self/fd (needs the container's /proc).
     */
    public record Gate(String path, int opathFd) {}

    /** The descriptor number the child holds the gate at: the lowest after the preserved ones. */
    public static int gateFd(int preserveFds) {
        return 3 + preserveFds;
    }

    /** Spawns and returns the pid; blocks until the gate is opened by a reader and the program exec'd. */
    public static int spawn(SpawnRequest request, Gate gate, String ptySlave) {
        int low = gateFd(request.preserveFds());
        try (PosixSpawn spawn = new PosixSpawn()) {
            spawn.cleanSignals().newSession();
            if (ptySlave != null) {
                spawn.open(0, ptySlave, FileDescriptors.O_RDWR, 0).dup2(0, 1).dup2(0, 2);
            } else {
                SpawnRequest.Stdio stdio = request.stdio();
                int[] from = {stdio.in(), stdio.out(), stdio.err()};
                for (int fd = 0; fd < 3; fd++) {
                    if (from[fd] >= 0) {
                        spawn.dup2(from[fd], fd);
                    }
                }
            }
            for (int fd = 3; fd < low; fd++) {
                spawn.dup2(fd, fd);
            }
            spawn.chdir(request.cwd());
            int writeEnd = FileDescriptors.O_WRONLY | FileDescriptors.O_CLOEXEC;
            if (gate.opathFd() < 0) {
                if (!gate.path().endsWith("/self/fd/" + low)) {
                    throw new IllegalArgumentException("gate " + gate.path() + " is not at fd " + low);
                }
                spawn.closeFrom(low).open(low, gate.path(), FileDescriptors.O_PATH | FileDescriptors.O_CLOEXEC, 0)
                        .open(low + 1, gate.path(), writeEnd, 0).close(low);
            } else {
                spawn.dup2(gate.opathFd(), low).closeFrom(low + 1)
                        .open(low + 1, "/proc/self/fd/" + low, writeEnd, 0).close(low);
            }
            // Again once past the gate: create makes the mounts listed after /proc again while the child
            // waits there (MountOrder), and a working directory in one of them would be the detached copy.
            spawn.chdir(request.cwd());
            return spawn.spawn(request.path(), request.args(), request.env());
        }
    }
}
