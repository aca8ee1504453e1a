package io.jrunc.runtime.init;

/**
 * How a container's process is made once its thread is prepared: by posix_spawn after the thread took
 * the process's credentials, or, when the process has a seccomp filter, by a {@link ChainSpawn} that
 * loads the filter and drops the credentials itself (docs/seccomp.md). Shared by create and exec.
 */
public final class ProcessSpawn {
    private final FilterCompilation filter;
    private final ChildStatus.Runtime runtime;
    private volatile ChildStatus.Expected expected;

    /** Constructed on the creating thread: what the child inherits is read from the host's /proc. */
    public ProcessSpawn(FilterCompilation filter) {
        this.filter = filter;
        this.runtime = filter == null ? null : ChildStatus.Runtime.read();
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
        if (filter == null) {
            setup.credentials().apply();
            self.spawning();
            return ProcessLauncher.spawn(setup.request(), gate, ptySlave);
        }
        FilterCompilation.Loadable compiled = filter.get();
        try (ChainSpawn chain = ChainSpawn.of(setup.request(), gate, ptySlave, setup.credentials(), compiled,
                runtime)) {
            PreExecCheck.check(compiled.filter(), chain.afterLoad());
            expected = ChildStatus.expected(setup.credentials(), runtime);
            self.spawning();
            return chain.spawn();
        }
    }
}
