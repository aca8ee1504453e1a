package io.jrunc.runtime.init;

/**
 * How a container's process is made once its thread is prepared: a {@link ChainSpawn} that loads the
 * filter when the process has one (docs/seccomp.md), waits at the gates, enters the working directory
 * and drops the credentials itself, and reports what a chain cannot return ({@link ChildReport},
 * {@link ExecFailure}). Shared by create and exec.
 */
public final class ProcessSpawn {
    private final FilterCompilation filter;
    private final ChildStatus.Runtime runtime;
    private final int cgroupGate;
    private final boolean unshareCgroup;
    private final ChildReport report;
    private volatile ChildStatus.Expected expected;

    /**
     * Constructed on the creating thread: what the child inherits is read from the host's /proc.
     *
     * @param cgroupGate the read end of the pipe the child waits on until its creator moved it into the
     *                   container's cgroup ({@link ChildCgroupEntry}), or -1
     * @param unshareCgroup the child creates the cgroup namespace once moved
     * @param report where the child reports; the caller closes it once the child can no longer write
     */
    public ProcessSpawn(FilterCompilation filter, int cgroupGate, boolean unshareCgroup, ChildReport report) {
        this.filter = filter;
        this.cgroupGate = cgroupGate;
        this.unshareCgroup = unshareCgroup;
        this.report = report;
        this.runtime = ChildStatus.Runtime.read();
    }

    /** What the child inherits from the runtime. */
    ChildStatus.Runtime runtime() {
        return runtime;
    }

    /** What the child must show in /proc/PID/status once at the exec gate ({@link ChildStatus}). */
    public ChildStatus.Expected expected() {
        return expected;
    }

    /**
     * Called by the spawning thread first, while its root is still the host's: waits for the filter's
     * compilation, which opens the seccomp jar the thread's later class loads may need.
     */
    void awaitFilter() {
        if (filter != null) {
            filter.get();
        }
    }

    /**
     * Spawns from the calling (prepared) thread and returns the pid once the child has exec'd.
     *
     * @param userNamespace a descriptor of the user namespace the child joins first, or -1
     * @param hostIds the host's ids behind the process's (what the host's /proc shows of it)
     */
    int spawn(ProcessSetup setup, ChainSpawn.Gates gates, String ptySlave, SpawnThread self, int userNamespace,
            HostIds hostIds) {
        FilterCompilation.Loadable compiled = filter == null ? null : filter.get();
        try (ChainSpawn chain = ChainSpawn.of(setup.request(), gates, ptySlave, setup.credentials(), compiled,
                runtime, cgroupGate, unshareCgroup, report, userNamespace)) {
            if (compiled != null) {
                PreExecCheck.check(compiled.filter(), chain.afterLoad());
            }
            expected = ChildStatus.expected(setup.credentials(), runtime, compiled != null, userNamespace >= 0, hostIds);
            self.spawning();
            return chain.spawn();
        }
    }
}
