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
    private final HostIds hostIds;

    /**
     * @param filter the container's compiled linux.seccomp, or null
     * @param report where the child says how its chdirs went
     */
    public ExecInit(int initPid, Process process, Cgroup cgroup, int gateFd, int consoleSocket, int preserveFds,
            FilterCompilation filter, SpawnRequest.Stdio stdio, int cgroupGate, ChildReport report) {
        this(initPid, process, cgroup, gateFd, consoleSocket, preserveFds, filter, stdio, cgroupGate, report,
                HostIds.IDENTITY);
    }

    /** @param hostIds the host's ids behind the container's ({@link HostIds#read} of the init process) */
    public ExecInit(int initPid, Process process, Cgroup cgroup, int gateFd, int consoleSocket, int preserveFds,
            FilterCompilation filter, SpawnRequest.Stdio stdio, int cgroupGate, ChildReport report, HostIds hostIds) {
        this.hostIds = hostIds;
        this.stdio = stdio;
        this.cgroupGate = cgroupGate;
        this.initPid = initPid;
        this.process = process;
        this.cgroup = cgroup;
        this.gateFd = gateFd;
        this.consoleSocket = consoleSocket;
        this.preserveFds = preserveFds;
        this.spawn = new ProcessSpawn(filter, cgroupGate, false, report);
    }

    /** What the child must show in /proc/PID/status, once it is spawning. */
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
        // The container's user namespace, if it has one of its own, is joined by the process's chain:
        // no thread of a JVM can join one.
        int userNamespace = InitNamespaces.openUser(initPid);
        try {
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
                slave = PtyHandoff.handOver(consoleSocket, process.consoleSize(), false, hostIds);
            }
            FsContext.umask(setup.request().umask());
            return spawn.spawn(setup, new ChainSpawn.Gates(null, gateFd, -1), slave, self, userNamespace, hostIds);
        } finally {
            io.jrunc.bindings.FileDescriptors.closeQuietly(userNamespace);
        }
    }
}
