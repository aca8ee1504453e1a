package io.jrunc.tests.e2e;

import com.google.protobuf.Any;
import com.google.protobuf.ByteString;
import io.grpc.CallOptions;
import io.grpc.ClientInterceptors;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.MultiThreadIoEventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollDomainSocketChannel;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollIoHandler;
import io.grpc.netty.shaded.io.netty.channel.unix.DomainSocketAddress;
import io.grpc.protobuf.ProtoUtils;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.MetadataUtils;
import io.jrunc.containerd.api.task.v2.UpdateTaskRequest;
import io.jrunc.containerd.api.task.v2.WaitRequest;
import io.jrunc.containerd.api.task.v2.WaitResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * The two calls of containerd's task service (gRPC {@code containerd.services.tasks.v1.Tasks}) that
 * Debian's ctr 1.6 has no command for: Update (a task's resources) and Wait (a task's exit status).
 * containerd's UpdateTaskRequest, WaitRequest and WaitResponse have the same fields and numbers as the
 * shim API's messages of those names, so those generated messages are used on the wire. The namespace
 * travels as gRPC metadata {@code containerd-namespace}, as ctr sends it.
 */
final class ContainerdTasks implements AutoCloseable {
    private static final String SERVICE = "containerd.services.tasks.v1.Tasks";
    private static final MethodDescriptor<UpdateTaskRequest, com.google.protobuf.Empty> UPDATE =
            MethodDescriptor.<UpdateTaskRequest, com.google.protobuf.Empty>newBuilder()
                    .setType(MethodDescriptor.MethodType.UNARY)
                    .setFullMethodName(MethodDescriptor.generateFullMethodName(SERVICE, "Update"))
                    .setRequestMarshaller(ProtoUtils.marshaller(UpdateTaskRequest.getDefaultInstance()))
                    .setResponseMarshaller(ProtoUtils.marshaller(com.google.protobuf.Empty.getDefaultInstance()))
                    .build();
    private static final MethodDescriptor<WaitRequest, WaitResponse> WAIT =
            MethodDescriptor.<WaitRequest, WaitResponse>newBuilder()
                    .setType(MethodDescriptor.MethodType.UNARY)
                    .setFullMethodName(MethodDescriptor.generateFullMethodName(SERVICE, "Wait"))
                    .setRequestMarshaller(ProtoUtils.marshaller(WaitRequest.getDefaultInstance()))
                    .setResponseMarshaller(ProtoUtils.marshaller(WaitResponse.getDefaultInstance()))
                    .build();
    /** The type URL containerd gives OCI LinuxResources (their JSON is the Any's value). */
    private static final String LINUX_RESOURCES = "types.containerd.io/opencontainers/runtime-spec/1/LinuxResources";

    private final EventLoopGroup loop;
    private final ManagedChannel channel;
    private final io.grpc.Channel namespaced;
    private final Duration deadline;

    ContainerdTasks(Path socket, String namespace, Duration deadline) {
        this.loop = new MultiThreadIoEventLoopGroup(1, EpollIoHandler.newFactory());
        this.channel = NettyChannelBuilder.forAddress(new DomainSocketAddress(socket.toString()))
                .eventLoopGroup(loop).channelType(EpollDomainSocketChannel.class).usePlaintext().build();
        Metadata headers = new Metadata();
        headers.put(Metadata.Key.of("containerd-namespace", Metadata.ASCII_STRING_MARSHALLER), namespace);
        this.namespaced = ClientInterceptors.intercept(channel, MetadataUtils.newAttachHeadersInterceptor(headers));
        this.deadline = deadline;
    }

    /** Sets the task's resources to {@code linuxResourcesJson} (OCI LinuxResources). */
    void update(String id, String linuxResourcesJson) {
        ClientCalls.blockingUnaryCall(namespaced, UPDATE, options(), UpdateTaskRequest.newBuilder().setId(id)
                .setResources(Any.newBuilder().setTypeUrl(LINUX_RESOURCES)
                        .setValue(ByteString.copyFrom(linuxResourcesJson, StandardCharsets.UTF_8)))
                .build());
    }

    /** Waits for the task's init (or exec {@code execId}) to exit; its exit status. */
    int await(String id, String execId) {
        return ClientCalls.blockingUnaryCall(namespaced, WAIT, options(),
                WaitRequest.newBuilder().setId(id).setExecId(execId).build()).getExitStatus();
    }

    private CallOptions options() {
        return CallOptions.DEFAULT.withDeadlineAfter(deadline.toMillis(), TimeUnit.MILLISECONDS);
    }

    @Override
    public void close() throws InterruptedException {
        channel.shutdownNow();
        channel.awaitTermination(10, TimeUnit.SECONDS);
        loop.shutdownGracefully(0, 1, TimeUnit.SECONDS).await(10, TimeUnit.SECONDS);
    }
}
