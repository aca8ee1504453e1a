package io.jrunc.runtime.init;

import java.util.List;

/**
 * The program a container thread spawns, with everything already resolved in the container:
 * {@code path} is args[0] found on the container's PATH, {@code cwd} exists.
 *
 * @param preserveFds how many descriptors from 3 up the process keeps (runc's --preserve-fds)
 * @param terminal    open a pty in the container and make it the process's controlling terminal
 */
public record SpawnRequest(String path, List<String> args, List<String> env, String cwd, int umask,
        int preserveFds, boolean terminal) {}
