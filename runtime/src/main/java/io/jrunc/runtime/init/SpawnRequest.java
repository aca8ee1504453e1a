package io.jrunc.runtime.init;

import java.util.List;

/**
 * The program a container thread spawns, with everything already resolved in the container:
 * {@code path} is args[0] found on the container's PATH, {@code cwd} exists.
 *
 * @param preserveFds how many descriptors from 3 up the process keeps (runc's --preserve-fds)
 * @param terminal    open a pty in the container and make it the process's controlling terminal
 * @param stdio       descriptors of the runtime's to become the process's 0, 1 and 2 (the jrunc binary
 *                    passes its own by inheriting them: {@link Stdio#INHERIT})
 */
public record SpawnRequest(String path, List<String> args, List<String> env, String cwd, int umask,
        int preserveFds, boolean terminal, Stdio stdio) {

    /**
     * Explicit standard streams for a process made by a runtime whose own 0, 1 and 2 are not the
     * process's (the guest agent holds a pipe or a pty per process). -1 keeps the inherited descriptor.
     * The numbers must not be among the preserved descriptors (3 .. 3+preserveFds-1).
     */
    public record Stdio(int in, int out, int err) {
        public static final Stdio INHERIT = new Stdio(-1, -1, -1);

        public boolean inherits() {
            return in < 0 && out < 0 && err < 0;
        }
    }

    public SpawnRequest withStdio(Stdio streams) {
        return new SpawnRequest(path, args, env, cwd, umask, preserveFds, terminal, streams);
    }
}
