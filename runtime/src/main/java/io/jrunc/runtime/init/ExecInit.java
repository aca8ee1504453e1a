package io.jrunc.runtime.init;

import io.jrunc.bindings.FsContext;
import io.jrunc.cgroups.Cgroup;
import io.jrunc.cgroups.ChildPlacement;
import io.jrunc.spec.Process;

/**
 * What the spawning thread does for `exec`: join the running container's namespaces
 * ({@link InitNamespaces}), enter its cgroup, take the process's identity and spawn behind a gate. The gate FIFO lives in the state directory, outside the container, so the child reaches it
 * through an inherited O_PATH descriptor reopened via the container's /proc/self/fd.
 */
public final class ExecInit implements SpawnThread.Body {
    private final int initPid;
    private final Process process;
    private final Cgroup cgroup;
    private final int gateFd;
    private final int consoleSocket;
    private final int preserveFds;
    private final ProcessSpawn spawn;
    private final SpawnRequest.Stdio stdio;
    /** -1, or the pipe the child waits on until its creator moved it into the cgroup ({@link ChildCgroupEntry}). */
    private final int cgroupGate;
    private volatile ChildPlacement placement;

    /** @param filter the container's compiled linux.seccomp, or null (then posix_spawn makes the process) */
    public ExecInit(int initPid, Process process, Cgroup cgroup, int gateFd, int consoleSocket, int preserveFds,
            FilterCompilation filter, SpawnRequest.Stdio stdio, int cgroupGate) {
        this.stdio = stdio;
        this.cgroupGate = cgroupGate;
        this.initPid = initPid;
        this.process = process;
        this.cgroup = cgroup;
        this.gateFd = gateFd;
        this.consoleSocket = consoleSocket;
        this.preserveFds = preserveFds;
        this.spawn = new ProcessSpawn(filter, cgroupGate, false);
    }

    /** What the child must show in /proc/PID/status; null unless a {@link ChainSpawn} made it. */
    public ChildStatus.Expected expected() {
        return spawn.expected();
    }

    public ChildPlacement placement() {
        return placement;
    }

    @Override
    public int run(SpawnThread self) throws Exception {
        spawn.awaitFilter();
        FsContext.unshare();
        try (InitNamespaces namespaces = InitNamespaces.open(initPid, InitNamespaces.ALL)) {
            if (cgroupGate < 0) {
                placement = cgroup.placeForChildren(self.tid());
            }
            namespaces.join();
        }
        FsContext.chdir("/");
        ProcessSetup setup = ProcessSetup.forExec(process, preserveFds).withStdio(stdio);
        String slave = null;
        if (setup.request().terminal()) {
            slave = PtyHandoff.handOver(consoleSocket, process.consoleSize(), false);
        }
        FsContext.umask(setup.request().umask());
        return spawn.spawn(setup, new ProcessLauncher.Gate(null, gateFd), slave, self);
    }
}
