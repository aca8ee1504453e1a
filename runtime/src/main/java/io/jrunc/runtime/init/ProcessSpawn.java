package io.jrunc.runtime.init;

/**
 * How a container's process is made once its thread is prepared: by posix_spawn after the thread took
 * the process's credentials, or, when the process has a seccomp filter, by a {@link ChainSpawn} that
 * loads the filter and drops the credentials itself (docs/seccomp.md). Shared by create and exec.
 */
public final class ProcessSpawn {
    private final FilterCompilation filter;
    private final ChildStatus.Runtime runtime;
    private final int cgroupGate;
    private final boolean unshareCgroup;
    private volatile ChildStatus.Expected expected;

    /** Constructed on the creating thread: what the child inherits is read from the host's /proc. */
    public ProcessSpawn(FilterCompilation filter) {
        this(filter, -1, false);
    }

    /**
     * @param cgroupGate the read end of the pipe the child waits on until its creator moved it into the
     *                   container's cgroup ({@link ChildCgroupEntry}), or -1: then a chain makes the
     *                   child even without a filter
     * @param unshareCgroup the child creates the cgroup namespace once moved
     */
    public ProcessSpawn(FilterCompilation filter, int cgroupGate, boolean unshareCgroup) {
        this.filter = filter;
        this.cgroupGate = cgroupGate;
        this.unshareCgroup = unshareCgroup;
        this.runtime = filter == null && cgroupGate < 0 ? null : ChildStatus.Runtime.read();
    }

    /** What the child must show in /proc/PID/status once at the gate ({@link ChildStatus}); null for posix_spawn. */
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

    /** Spawns from the calling (prepared) thread and returns the pid once the child has exec'd. */
    int spawn(ProcessSetup setup, ProcessLauncher.Gate gate, String ptySlave, SpawnThread self) {
        if (filter == null && cgroupGate < 0) {
            setup.credentials().apply();
            self.spawning();
            return ProcessLauncher.spawn(setup.request(), gate, ptySlave);
        }
        FilterCompilation.Loadable compiled = filter == null ? null : filter.get();
        try (ChainSpawn chain = ChainSpawn.of(setup.request(), gate, ptySlave, setup.credentials(), compiled,
                runtime, cgroupGate, unshareCgroup)) {
            if (compiled != null) {
                PreExecCheck.check(compiled.filter(), chain.afterLoad());
            }
            expected = ChildStatus.expected(setup.credentials(), runtime, compiled != null);
            self.spawning();
            return chain.spawn();
        }
    }
}
