package io.jrunc.tests.e2e;

import com.google.protobuf.Message;
import io.grpc.MethodDescriptor;
import io.grpc.protobuf.ProtoUtils;
import io.jrunc.tests.cri.v1.*;
import java.util.List;

/**
 * The CRI methods the tests call, as gRPC method descriptors over the messages compiled from
 * src/test/proto (no generated stubs: a descriptor is a name and two marshallers). CriMethodsTest checks
 * this list against the compiled services, both ways, so a method added to the schema fails the build
 * until it is listed here.
 */
final class CriMethods {
    private CriMethods() {}

    static final String RUNTIME_SERVICE = "runtime.v1.RuntimeService";
    static final String IMAGE_SERVICE = "runtime.v1.ImageService";

    static final MethodDescriptor<VersionRequest, VersionResponse> VERSION =
            unary(RUNTIME_SERVICE, "Version", VersionRequest.getDefaultInstance(), VersionResponse.getDefaultInstance());
    static final MethodDescriptor<StatusRequest, StatusResponse> STATUS =
            unary(RUNTIME_SERVICE, "Status", StatusRequest.getDefaultInstance(), StatusResponse.getDefaultInstance());
    static final MethodDescriptor<RunPodSandboxRequest, RunPodSandboxResponse> RUN_POD_SANDBOX =
            unary(RUNTIME_SERVICE, "RunPodSandbox", RunPodSandboxRequest.getDefaultInstance(),
                    RunPodSandboxResponse.getDefaultInstance());
    static final MethodDescriptor<StopPodSandboxRequest, StopPodSandboxResponse> STOP_POD_SANDBOX =
            unary(RUNTIME_SERVICE, "StopPodSandbox", StopPodSandboxRequest.getDefaultInstance(),
                    StopPodSandboxResponse.getDefaultInstance());
    static final MethodDescriptor<RemovePodSandboxRequest, RemovePodSandboxResponse> REMOVE_POD_SANDBOX =
            unary(RUNTIME_SERVICE, "RemovePodSandbox", RemovePodSandboxRequest.getDefaultInstance(),
                    RemovePodSandboxResponse.getDefaultInstance());
    static final MethodDescriptor<PodSandboxStatusRequest, PodSandboxStatusResponse> POD_SANDBOX_STATUS =
            unary(RUNTIME_SERVICE, "PodSandboxStatus", PodSandboxStatusRequest.getDefaultInstance(),
                    PodSandboxStatusResponse.getDefaultInstance());
    static final MethodDescriptor<ListPodSandboxRequest, ListPodSandboxResponse> LIST_POD_SANDBOX =
            unary(RUNTIME_SERVICE, "ListPodSandbox", ListPodSandboxRequest.getDefaultInstance(),
                    ListPodSandboxResponse.getDefaultInstance());
    static final MethodDescriptor<CreateContainerRequest, CreateContainerResponse> CREATE_CONTAINER =
            unary(RUNTIME_SERVICE, "CreateContainer", CreateContainerRequest.getDefaultInstance(),
                    CreateContainerResponse.getDefaultInstance());
    static final MethodDescriptor<StartContainerRequest, StartContainerResponse> START_CONTAINER =
            unary(RUNTIME_SERVICE, "StartContainer", StartContainerRequest.getDefaultInstance(),
                    StartContainerResponse.getDefaultInstance());
    static final MethodDescriptor<StopContainerRequest, StopContainerResponse> STOP_CONTAINER =
            unary(RUNTIME_SERVICE, "StopContainer", StopContainerRequest.getDefaultInstance(),
                    StopContainerResponse.getDefaultInstance());
    static final MethodDescriptor<RemoveContainerRequest, RemoveContainerResponse> REMOVE_CONTAINER =
            unary(RUNTIME_SERVICE, "RemoveContainer", RemoveContainerRequest.getDefaultInstance(),
                    RemoveContainerResponse.getDefaultInstance());
    static final MethodDescriptor<ListContainersRequest, ListContainersResponse> LIST_CONTAINERS =
            unary(RUNTIME_SERVICE, "ListContainers", ListContainersRequest.getDefaultInstance(),
                    ListContainersResponse.getDefaultInstance());
    static final MethodDescriptor<ContainerStatusRequest, ContainerStatusResponse> CONTAINER_STATUS =
            unary(RUNTIME_SERVICE, "ContainerStatus", ContainerStatusRequest.getDefaultInstance(),
                    ContainerStatusResponse.getDefaultInstance());
    static final MethodDescriptor<ExecSyncRequest, ExecSyncResponse> EXEC_SYNC =
            unary(RUNTIME_SERVICE, "ExecSync", ExecSyncRequest.getDefaultInstance(), ExecSyncResponse.getDefaultInstance());
    static final MethodDescriptor<ContainerStatsRequest, ContainerStatsResponse> CONTAINER_STATS =
            unary(RUNTIME_SERVICE, "ContainerStats", ContainerStatsRequest.getDefaultInstance(),
                    ContainerStatsResponse.getDefaultInstance());

    static final MethodDescriptor<ListImagesRequest, ListImagesResponse> LIST_IMAGES =
            unary(IMAGE_SERVICE, "ListImages", ListImagesRequest.getDefaultInstance(), ListImagesResponse.getDefaultInstance());
    static final MethodDescriptor<ImageStatusRequest, ImageStatusResponse> IMAGE_STATUS =
            unary(IMAGE_SERVICE, "ImageStatus", ImageStatusRequest.getDefaultInstance(),
                    ImageStatusResponse.getDefaultInstance());

    static List<MethodDescriptor<?, ?>> all() {
        return List.of(VERSION, STATUS, RUN_POD_SANDBOX, STOP_POD_SANDBOX, REMOVE_POD_SANDBOX, POD_SANDBOX_STATUS,
                LIST_POD_SANDBOX, CREATE_CONTAINER, START_CONTAINER, STOP_CONTAINER, REMOVE_CONTAINER, LIST_CONTAINERS,
                CONTAINER_STATUS, EXEC_SYNC, CONTAINER_STATS, LIST_IMAGES, IMAGE_STATUS);
    }

    private static <Q extends Message, R extends Message> MethodDescriptor<Q, R> unary(String service, String method,
            Q request, R response) {
        return MethodDescriptor.<Q, R>newBuilder()
                .setType(MethodDescriptor.MethodType.UNARY)
                .setFullMethodName(MethodDescriptor.generateFullMethodName(service, method))
                .setRequestMarshaller(ProtoUtils.marshaller(request))
                .setResponseMarshaller(ProtoUtils.marshaller(response))
                .build();
    }
}
