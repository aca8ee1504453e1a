package io.jrunc.runtime;

import java.nio.file.Path;

/**
 * The options of `create` (and the create half of `run`), as runc names them.
 *
 * @param pidFile       where to write the init pid once created (null: nowhere)
 * @param consoleSocket AF_UNIX socket that receives the pty master when process.terminal is true
 * @param preserveFds   how many descriptors from 3 up the container's process inherits
 */
public record CreateOptions(String id, Path bundle, Path pidFile, Path consoleSocket, boolean noPivot,
        boolean noNewKeyring, int preserveFds) {}
