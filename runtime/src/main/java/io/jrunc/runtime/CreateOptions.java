package io.jrunc.runtime;

import io.jrunc.runtime.init.ChildCgroupEntry;
import io.jrunc.runtime.init.SpawnRequest;
import java.nio.file.Path;

/**
 * The options of `create` (and the create half of `run`), as runc names them.
 *
 * @param pidFile       where to write the init pid once created (null: nowhere)
 * @param consoleSocket AF_UNIX socket that receives the pty master when process.terminal is true
 * @param preserveFds   how many descriptors from 3 up the container's process inherits
 * @param consoleFd     an already connected console socket (foreground `run` with a terminal), or -1
 * @param stdio         the process's standard streams when they are not the runtime's own (the guest
 *                      agent's pipes); the jrunc binary's callers pass theirs by inheritance
 * @param cgroupEntry   how the process gets into its cgroup: the jrunc binary's creator enters it, a
 *                      long-lived creator (the guest agent) has the child moved in
 */
public record CreateOptions(String id, Path bundle, Path pidFile, Path consoleSocket, boolean noPivot,
        boolean noNewKeyring, int preserveFds, int consoleFd, SpawnRequest.Stdio stdio,
        ChildCgroupEntry cgroupEntry) {

    public CreateOptions(String id, Path bundle, Path pidFile, Path consoleSocket, boolean noPivot,
            boolean noNewKeyring, int preserveFds, int consoleFd) {
        this(id, bundle, pidFile, consoleSocket, noPivot, noNewKeyring, preserveFds, consoleFd,
                SpawnRequest.Stdio.INHERIT, ChildCgroupEntry.CREATOR_ENTERS);
    }

    public CreateOptions(String id, Path bundle, Path pidFile, Path consoleSocket, boolean noPivot,
            boolean noNewKeyring, int preserveFds) {
        this(id, bundle, pidFile, consoleSocket, noPivot, noNewKeyring, preserveFds, -1);
    }
}
