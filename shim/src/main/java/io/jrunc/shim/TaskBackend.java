package io.jrunc.shim;

import io.jrunc.ttrpc.RpcException;
import java.util.List;

/**
 * What runs the tasks of one shim: containers on the host (made by the runtime library in the shim's
 * JVM), or containers in a pod VM. The task service (containerd's {@code containerd.task.v2.Task})
 * translates each call into one of these and each answer back; it owns the protocol, the events and
 * their order, a back end owns processes.
 *
 * <p>A process is named by its task id and an exec id; the empty exec id is the task's init process.
 * Errors are {@link RpcException}s with the code containerd maps to its errdefs: NOT_FOUND for an
 * unknown task or exec, ALREADY_EXISTS for a second create of an id, FAILED_PRECONDITION for a call
 * the process's state refuses (an exec into a stopped task, a start of a running process),
 * INVALID_ARGUMENT for input that is wrong, UNIMPLEMENTED for what the back end cannot do. Messages
 * are one line that names what is wrong, as containerd shows them to its user.
 *
 * <p>Calls arrive concurrently (Wait blocks until the process exits); a back end serialises what it
 * must per task.
 */
public interface TaskBackend extends AutoCloseable {
    /**
     * Creates the task's container with its init process waiting to be started: the rootfs mounts
     * mounted at bundle/rootfs, the stdio fifos opened (or a terminal made). Returns the init's pid.
     * A create that fails leaves nothing behind (no mount, cgroup, process or state).
     */
    int create(TaskRequests.Create request) throws RpcException;

    /** Starts the task's init or one of its execs; returns its pid. */
    int start(String id, String execId) throws RpcException;

    /** Adds an exec process to a running task (not started: {@link #start} does that). */
    void exec(TaskRequests.Exec request) throws RpcException;

    TaskStatus state(String id, String execId) throws RpcException;

    /**
     * Deletes a process that has exited (or was never started): the task's container with its
     * mounts and state, or the exec's record. Returns how it ended.
     */
    ProcessExit delete(String id, String execId) throws RpcException;

    /** Sends a signal to the process, or with {@code all} to every process of the task. */
    void kill(String id, String execId, int signal, boolean all) throws RpcException;

    /** Blocks until the process has exited; returns how it ended. */
    ProcessExit await(String id, String execId) throws RpcException;

    /** The pids of the task's processes, exec ids where the shim knows them. */
    List<TaskStatus.ProcessPid> pids(String id) throws RpcException;

    void pause(String id) throws RpcException;

    void resume(String id) throws RpcException;

    /** Applies new resources, given as OCI {@code LinuxResources} JSON (containerd sends that). */
    void update(String id, byte[] linuxResourcesJson) throws RpcException;

    /** The task's cgroup figures. */
    TaskStats stats(String id) throws RpcException;

    void resizePty(String id, String execId, int width, int height) throws RpcException;

    /** Closes the process's stdin (the writer side the shim holds), so that it reads end of file. */
    void closeStdin(String id, String execId) throws RpcException;

    /** The pid containerd is told is the task's (Connect): the init's, 0 before there is one. */
    int taskPid(String id) throws RpcException;

    /** Whether any task is left (a grouped shim ends only when none is). */
    boolean empty();

    /** Ends what the back end still holds (the shim is going away). */
    @Override
    void close();
}
