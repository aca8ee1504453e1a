package io.jrunc.shim;

/**
 * What a back end tells the task service as it happens; the service turns these into containerd's
 * events in the order containerd requires (an exit is never published before its process's start).
 * Called from any thread; must not block.
 */
public interface TaskEvents {
    /** A process ended (the task's init when execId is empty). */
    void exited(String id, String execId, ProcessExit exit);

    /** The task's cgroup recorded an OOM kill. */
    void oom(String id);
}
