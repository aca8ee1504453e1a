package io.jrunc.runtime.init;

/**
 * How a container's process gets into its cgroup v2 directory, chosen by the caller of create and
 * exec (CreateOptions, ExecOptions).
 */
public enum ChildCgroupEntry {
    /**
     * The creator enters the cgroup for the moment of the spawn: on v2 the whole JVM moves in, because
     * a thread cannot leave its process's domain cgroup (cgroups ChildPlacement). Right for the jrunc
     * binary, which lives for one command.
     */
    CREATOR_ENTERS,
    /**
     * The child is moved in, never the creator: for a long-lived creator (the guest agent, PID 1), whose
     * memory would otherwise be charged to the container, its threads counted in its pids, and whose
     * concurrent creates would serialize on the move. The child is made by a libc chain whose first
     * step blocks on a pipe; the creating thread writes the child's pid to the container's cgroup.procs
     * (the child is a single-threaded process: legal on v2), then writes the pipe, and the chain goes on
     * to unshare the cgroup namespace, now rooted at the container's cgroup. Only on a pure cgroup v2
     * host; elsewhere it is {@link #CREATOR_ENTERS}.
     */
    CHILD_MOVED
}
