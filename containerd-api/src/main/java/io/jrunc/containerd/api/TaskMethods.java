package io.jrunc.containerd.api;

import com.google.protobuf.Empty;
import io.jrunc.containerd.api.task.v2.*;
import io.jrunc.ttrpc.Method;

/**
 * Every method of containerd's task service ({@code containerd.task.v2.Task}), typed, for the shim's
 * dispatcher and for clients in tests alike. ContainerdMethodsTest checks the list against the compiled
 * service descriptor both ways.
 */
public final class TaskMethods {
    private TaskMethods() {
    }

    public static final String SERVICE = "containerd.task.v2.Task";

    public static final Method<StateRequest, StateResponse> STATE =
            Method.of(SERVICE, "State", StateRequest.parser(), StateResponse.parser());
    public static final Method<CreateTaskRequest, CreateTaskResponse> CREATE =
            Method.of(SERVICE, "Create", CreateTaskRequest.parser(), CreateTaskResponse.parser());
    public static final Method<StartRequest, StartResponse> START =
            Method.of(SERVICE, "Start", StartRequest.parser(), StartResponse.parser());
    public static final Method<DeleteRequest, DeleteResponse> DELETE =
            Method.of(SERVICE, "Delete", DeleteRequest.parser(), DeleteResponse.parser());
    public static final Method<PidsRequest, PidsResponse> PIDS =
            Method.of(SERVICE, "Pids", PidsRequest.parser(), PidsResponse.parser());
    public static final Method<PauseRequest, Empty> PAUSE =
            Method.of(SERVICE, "Pause", PauseRequest.parser(), Empty.parser());
    public static final Method<ResumeRequest, Empty> RESUME =
            Method.of(SERVICE, "Resume", ResumeRequest.parser(), Empty.parser());
    public static final Method<CheckpointTaskRequest, Empty> CHECKPOINT =
            Method.of(SERVICE, "Checkpoint", CheckpointTaskRequest.parser(), Empty.parser());
    public static final Method<KillRequest, Empty> KILL =
            Method.of(SERVICE, "Kill", KillRequest.parser(), Empty.parser());
    public static final Method<ExecProcessRequest, Empty> EXEC =
            Method.of(SERVICE, "Exec", ExecProcessRequest.parser(), Empty.parser());
    public static final Method<ResizePtyRequest, Empty> RESIZE_PTY =
            Method.of(SERVICE, "ResizePty", ResizePtyRequest.parser(), Empty.parser());
    public static final Method<CloseIORequest, Empty> CLOSE_IO =
            Method.of(SERVICE, "CloseIO", CloseIORequest.parser(), Empty.parser());
    public static final Method<UpdateTaskRequest, Empty> UPDATE =
            Method.of(SERVICE, "Update", UpdateTaskRequest.parser(), Empty.parser());
    public static final Method<WaitRequest, WaitResponse> WAIT =
            Method.of(SERVICE, "Wait", WaitRequest.parser(), WaitResponse.parser());
    public static final Method<StatsRequest, StatsResponse> STATS =
            Method.of(SERVICE, "Stats", StatsRequest.parser(), StatsResponse.parser());
    public static final Method<ConnectRequest, ConnectResponse> CONNECT =
            Method.of(SERVICE, "Connect", ConnectRequest.parser(), ConnectResponse.parser());
    public static final Method<ShutdownRequest, Empty> SHUTDOWN =
            Method.of(SERVICE, "Shutdown", ShutdownRequest.parser(), Empty.parser());
}
