package io.jrunc.agent.api;

import io.jrunc.agent.api.pb.GetVersionRequest;
import io.jrunc.agent.api.pb.GetVersionResponse;
import io.jrunc.agent.api.pb.v1.*;
import io.jrunc.ttrpc.Method;

/**
 * Every method of the agent API, typed, for the host's client and the agent's dispatcher alike. The
 * names are the schema's (AgentMethodsTest checks this list against the compiled service
 * descriptors, both ways), so a method added to agent.proto fails the build until it is listed here.
 */
public final class AgentMethods {
    private AgentMethods() {
    }

    private static final String VERSION_SERVICE = "jrunc.agent.Version";
    private static final String POD = "jrunc.agent.v1.Pod";
    private static final String CONTAINERS = "jrunc.agent.v1.Containers";
    private static final String PROCESSES = "jrunc.agent.v1.Processes";
    private static final String FILES = "jrunc.agent.v1.Files";

    /** Frozen across majors: the first call of every client. */
    public static final Method<GetVersionRequest, GetVersionResponse> VERSION =
            Method.of(VERSION_SERVICE, "Get", GetVersionRequest.parser(), GetVersionResponse.parser());

    /** jrunc.agent.v1.Pod: the machine. */
    public static final class Pod {
        private Pod() {
        }

        public static final Method<ConfigurePodRequest, ConfigurePodResponse> CONFIGURE =
                Method.of(POD, "Configure", ConfigurePodRequest.parser(), ConfigurePodResponse.parser());
        public static final Method<AddSwapRequest, AddSwapResponse> ADD_SWAP =
                Method.of(POD, "AddSwap", AddSwapRequest.parser(), AddSwapResponse.parser());
        public static final Method<AddVolumeRequest, AddVolumeResponse> ADD_VOLUME =
                Method.of(POD, "AddVolume", AddVolumeRequest.parser(), AddVolumeResponse.parser());
        public static final Method<PodStatsRequest, PodStatsResponse> STATS =
                Method.of(POD, "Stats", PodStatsRequest.parser(), PodStatsResponse.parser());
        public static final Method<ShutdownRequest, ShutdownResponse> SHUTDOWN =
                Method.of(POD, "Shutdown", ShutdownRequest.parser(), ShutdownResponse.parser());
    }

    /** jrunc.agent.v1.Containers: each container's lifecycle. */
    public static final class Containers {
        private Containers() {
        }

        public static final Method<CreateContainerRequest, CreateContainerResponse> CREATE =
                Method.of(CONTAINERS, "Create", CreateContainerRequest.parser(), CreateContainerResponse.parser());
        public static final Method<StartContainerRequest, StartContainerResponse> START =
                Method.of(CONTAINERS, "Start", StartContainerRequest.parser(), StartContainerResponse.parser());
        public static final Method<StopContainerRequest, StopContainerResponse> STOP =
                Method.of(CONTAINERS, "Stop", StopContainerRequest.parser(), StopContainerResponse.parser());
        public static final Method<RemoveContainerRequest, RemoveContainerResponse> REMOVE =
                Method.of(CONTAINERS, "Remove", RemoveContainerRequest.parser(), RemoveContainerResponse.parser());
        public static final Method<InspectContainerRequest, InspectContainerResponse> INSPECT =
                Method.of(CONTAINERS, "Inspect", InspectContainerRequest.parser(), InspectContainerResponse.parser());
        public static final Method<ListContainersRequest, ListContainersResponse> LIST =
                Method.of(CONTAINERS, "List", ListContainersRequest.parser(), ListContainersResponse.parser());
        public static final Method<ContainerStatsRequest, ContainerStatsResponse> STATS =
                Method.of(CONTAINERS, "Stats", ContainerStatsRequest.parser(), ContainerStatsResponse.parser());
        public static final Method<UpdateContainerRequest, UpdateContainerResponse> UPDATE =
                Method.of(CONTAINERS, "Update", UpdateContainerRequest.parser(), UpdateContainerResponse.parser());
        public static final Method<PauseContainerRequest, PauseContainerResponse> PAUSE =
                Method.of(CONTAINERS, "Pause", PauseContainerRequest.parser(), PauseContainerResponse.parser());
        public static final Method<ResumeContainerRequest, ResumeContainerResponse> RESUME =
                Method.of(CONTAINERS, "Resume", ResumeContainerRequest.parser(), ResumeContainerResponse.parser());
    }

    /** jrunc.agent.v1.Processes: a container's process and its execs, signals, exits, stdio. */
    public static final class Processes {
        private Processes() {
        }

        public static final Method<ExecRequest, ExecResponse> EXEC =
                Method.of(PROCESSES, "Exec", ExecRequest.parser(), ExecResponse.parser());
        public static final Method<SignalRequest, SignalResponse> SIGNAL =
                Method.of(PROCESSES, "Signal", SignalRequest.parser(), SignalResponse.parser());
        public static final Method<WaitRequest, WaitResponse> WAIT =
                Method.of(PROCESSES, "Wait", WaitRequest.parser(), WaitResponse.parser());
        public static final Method<WriteStdinRequest, WriteStdinResponse> WRITE_STDIN =
                Method.of(PROCESSES, "WriteStdin", WriteStdinRequest.parser(), WriteStdinResponse.parser());
        public static final Method<CloseStdinRequest, CloseStdinResponse> CLOSE_STDIN =
                Method.of(PROCESSES, "CloseStdin", CloseStdinRequest.parser(), CloseStdinResponse.parser());
        public static final Method<ReadOutputRequest, ReadOutputResponse> READ_OUTPUT =
                Method.of(PROCESSES, "ReadOutput", ReadOutputRequest.parser(), ReadOutputResponse.parser());
        public static final Method<ResizeTerminalRequest, ResizeTerminalResponse> RESIZE_TERMINAL =
                Method.of(PROCESSES, "ResizeTerminal", ResizeTerminalRequest.parser(), ResizeTerminalResponse.parser());
    }

    /** jrunc.agent.v1.Files (minor 4): files and trees copied into and out of a container's root. */
    public static final class Files {
        private Files() {
        }

        public static final Method<FileStatRequest, FileStatResponse> FILE_STAT =
                Method.of(FILES, "FileStat", FileStatRequest.parser(), FileStatResponse.parser());
        public static final Method<CopyInRequest, CopyInResponse> COPY_IN =
                Method.of(FILES, "CopyIn", CopyInRequest.parser(), CopyInResponse.parser());
        public static final Method<CopyInWriteRequest, CopyInWriteResponse> COPY_IN_WRITE =
                Method.of(FILES, "CopyInWrite", CopyInWriteRequest.parser(), CopyInWriteResponse.parser());
        public static final Method<CopyOutRequest, CopyOutResponse> COPY_OUT =
                Method.of(FILES, "CopyOut", CopyOutRequest.parser(), CopyOutResponse.parser());
        public static final Method<CopyOutReadRequest, CopyOutReadResponse> COPY_OUT_READ =
                Method.of(FILES, "CopyOutRead", CopyOutReadRequest.parser(), CopyOutReadResponse.parser());
        public static final Method<CopyCancelRequest, CopyCancelResponse> COPY_CANCEL =
                Method.of(FILES, "CopyCancel", CopyCancelRequest.parser(), CopyCancelResponse.parser());
    }
}
