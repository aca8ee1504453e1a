package io.jrunc.runtime.init;

/**
 * How a container's process gets into its cgroup v2 directory. The jrunc binary, short-lived, moves
 * its whole JVM in for the moment of the spawn (cgroups ChildPlacement says why). A long-lived creator
 * (the guest agent, PID 1) must not: its memory would be charged to the container, its threads counted
 * in its pids, and concurrent creates would serialize. It enables this once: the child is then made
 * by a libc chain whose first step blocks on a pipe; the creating thread writes the child's pid to the
 * container's cgroup.procs (a single-threaded process: legal on v2), then writes the pipe, and the
 * chain goes on to unshare the cgroup namespace, now rooted at the container's cgroup
 * (shared/design/process-model.md section 5). Only on a pure cgroup v2 host.
 */
public final class ChildCgroupEntry {
    private ChildCgroupEntry() {}

    private static volatile boolean moveChild;

    /** The creator moves each child instead of itself, from now on. */
    public static void moveChildInstead() {
        moveChild = true;
    }

    public static boolean movesChild() {
        return moveChild;
    }
}
