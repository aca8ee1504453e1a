package io.jrunc.tests.e2e;

import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.MultiThreadIoEventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.epoll.Epoll;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollDomainSocketChannel;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollIoHandler;
import io.grpc.netty.shaded.io.netty.channel.unix.DomainSocketAddress;
import io.grpc.stub.ClientCalls;
import io.jrunc.testsupport.Requirements;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * A CRI client, as the kubelet is one: gRPC over the runtime's unix socket, one call at a time, each
 * with a deadline so that a runtime that never answers fails the test instead of hanging it. Errors
 * come back as the StatusRuntimeException gRPC throws, with the runtime's message.
 */
final class CriClient implements AutoCloseable {
    /*
     * gRPC sets SO_KEEPALIVE on every Netty channel, and Netty logs a warning per connection that a unix
     * socket has no such option. Held here: java.util.logging keeps loggers only weakly.
     */
    private static final Logger BOOTSTRAP_LOG = Logger.getLogger("io.grpc.netty.shaded.io.netty.bootstrap.Bootstrap");

    static {
        BOOTSTRAP_LOG.setLevel(Level.SEVERE);
    }

    private final EventLoopGroup loop;
    private final ManagedChannel channel;
    private final Duration deadline;

    private CriClient(EventLoopGroup loop, ManagedChannel channel, Duration deadline) {
        this.loop = loop;
        this.channel = channel;
        this.deadline = deadline;
    }

    /** A client of the CRI server at {@code socket}; {@code deadline} bounds every call. */
    static CriClient connect(Path socket, Duration deadline) {
        Requirements.require(Epoll.isAvailable(), "Netty's epoll transport (in grpc-netty-shaded) for the CRI"
                + " client's unix socket: " + Epoll.unavailabilityCause());
        EventLoopGroup loop = new MultiThreadIoEventLoopGroup(1, EpollIoHandler.newFactory());
        ManagedChannel channel = NettyChannelBuilder.forAddress(new DomainSocketAddress(socket.toString()))
                .eventLoopGroup(loop)
                .channelType(EpollDomainSocketChannel.class)
                .usePlaintext()
                .build();
        return new CriClient(loop, channel, deadline);
    }

    /** Calls {@code method} and waits for its answer (or the deadline). */
    <Q, R> R call(MethodDescriptor<Q, R> method, Q request) {
        return ClientCalls.blockingUnaryCall(channel, method,
                CallOptions.DEFAULT.withDeadlineAfter(deadline.toMillis(), TimeUnit.MILLISECONDS), request);
    }

    @Override
    public void close() throws InterruptedException {
        channel.shutdownNow();
        channel.awaitTermination(10, TimeUnit.SECONDS);
        loop.shutdownGracefully(0, 1, TimeUnit.SECONDS).await(10, TimeUnit.SECONDS);
    }
}
