package io.jrunc.shim;

/**
 * A process's state as the task service's State answers it.
 *
 * @param exit how it ended, null while it has not
 */
public record TaskStatus(String id, String execId, int pid, Phase phase, TaskRequests.Stdio stdio, ProcessExit exit) {
    /** containerd.v1.types.Status. */
    public enum Phase { UNKNOWN, CREATED, RUNNING, STOPPED, PAUSED, PAUSING }

    /** One process of a task: its pid and, when the shim started it as an exec, that exec's id. */
    public record ProcessPid(int pid, String execId) {
    }

    public static TaskStatus running(String id, String execId, int pid, TaskRequests.Stdio stdio) {
        return new TaskStatus(id, execId, pid, Phase.RUNNING, stdio, null);
    }
}
