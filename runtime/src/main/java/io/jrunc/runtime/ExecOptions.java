package io.jrunc.runtime;

import io.jrunc.runtime.init.ChildCgroupEntry;
import io.jrunc.runtime.init.SpawnRequest;
import io.jrunc.spec.Process;
import java.nio.file.Path;

/**
 * `exec`: the process to run (already merged with the container's defaults) and runc's exec flags;
 * {@code stdio} is the process's standard streams when they are not the runtime's own (the guest agent),
 * {@code cgroupEntry} how the process gets into the container's cgroup (the agent has it moved in).
 */
public record ExecOptions(Process process, Path pidFile, Path consoleSocket, boolean detach, int preserveFds,
        boolean ignorePaused, SpawnRequest.Stdio stdio, ChildCgroupEntry cgroupEntry) {

    public ExecOptions(Process process, Path pidFile, Path consoleSocket, boolean detach, int preserveFds,
            boolean ignorePaused) {
        this(process, pidFile, consoleSocket, detach, preserveFds, ignorePaused, SpawnRequest.Stdio.INHERIT,
                ChildCgroupEntry.CREATOR_ENTERS);
    }
}
