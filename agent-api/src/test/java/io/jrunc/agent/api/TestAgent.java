package io.jrunc.agent.api;

import io.jrunc.agent.api.pb.v1.ContainerInfo;
import io.jrunc.agent.api.pb.v1.ExitStatus;
import io.jrunc.agent.api.pb.v1.InspectContainerResponse;
import io.jrunc.agent.api.pb.v1.WaitResponse;
import io.jrunc.ttrpc.ByteStream;
import io.jrunc.ttrpc.ClientOptions;
import io.jrunc.ttrpc.Code;
import io.jrunc.ttrpc.Dispatcher;
import io.jrunc.ttrpc.RpcException;
import io.jrunc.ttrpc.ServerOptions;
import io.jrunc.ttrpc.TtrpcServer;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * An agent stand-in for the protocol tests: the real Version handler and a few v1 methods with
 * behaviour the tests can steer (Inspect echoes, Wait blocks on a latch the test holds), served on a
 * Unix socket (one connection per client) or on an emulated virtio-serial port.
 */
final class TestAgent implements AutoCloseable {
    static final String NAME = "test-agent";
    /** Short, so a test that waits on a stall does not wait long. */
    static final ServerOptions SERVER_OPTIONS = new ServerOptions(Duration.ofMillis(150), 64);
    static final ClientOptions CLIENT_OPTIONS = ClientOptions.DEFAULTS
            .withSync(Duration.ofSeconds(10), Duration.ofMillis(400))
            .withCallTimeout(Duration.ofSeconds(10));

    /** Wait calls for a container with a latch here block until it is released. */
    final Map<String, CountDownLatch> waitGates = new ConcurrentHashMap<>();
    final TtrpcServer server;
    private final Path socket;
    private ChardevEmulator chardev;

    private TestAgent(int major, Path socket) {
        this.server = new TtrpcServer(dispatcher(waitGates, major), SERVER_OPTIONS);
        this.socket = socket;
    }

    private static Dispatcher dispatcher(Map<String, CountDownLatch> waitGates, int major) {
        return new Dispatcher()
                .register(AgentMethods.VERSION, (context, request) -> AgentProtocol.version(NAME).toBuilder().setMajor(major).build())
                .register(AgentMethods.Containers.INSPECT, (context, request) -> {
                    if (request.getId().equals("boom")) {
                        throw new IllegalStateException("a handler bug");
                    }
                    if (request.getId().isEmpty() || request.getId().startsWith("missing")) {
                        throw new RpcException(Code.NOT_FOUND, "container \"" + request.getId() + "\" does not exist");
                    }
                    return InspectContainerResponse.newBuilder()
                            .setContainer(ContainerInfo.newBuilder().setId(request.getId())).build();
                })
                .register(AgentMethods.Processes.WAIT, (context, request) -> {
                    String id = request.getProcess().getContainerId();
                    CountDownLatch gate = waitGates.get(id);
                    if (gate != null && !gate.await(20, TimeUnit.SECONDS)) {
                        throw new RpcException(Code.DEADLINE_EXCEEDED, "gate never opened");
                    }
                    return WaitResponse.newBuilder().setStatus(ExitStatus.newBuilder().setCode(id.length())).build();
                });
    }

    /** Serves connections on {@code dir}/agent.sock. */
    static TestAgent onSocket(Path dir) throws IOException {
        return onSocket(dir, AgentProtocol.MAJOR);
    }

    static TestAgent onSocket(Path dir, int major) throws IOException {
        Path socket = dir.resolve("agent.sock");
        TestAgent agent = new TestAgent(major, socket);
        ServerSocketChannel listener = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        listener.bind(UnixDomainSocketAddress.of(socket));
        Thread.ofVirtual().start(() -> {
            try {
                agent.server.serveConnections(listener);
            } catch (IOException e) {
                throw new AssertionError(e);
            }
        });
        return agent;
    }

    /** Serves an emulated virtio-serial port whose host side is {@code dir}/chardev.sock. */
    static TestAgent onPort(Path dir) throws IOException {
        Path socket = dir.resolve("chardev.sock");
        TestAgent agent = new TestAgent(AgentProtocol.MAJOR, socket);
        agent.chardev = new ChardevEmulator(socket);
        ByteStream port = agent.chardev.guestPort();
        Thread.ofVirtual().start(() -> agent.server.servePort(port));
        return agent;
    }

    Path socket() {
        return socket;
    }

    ByteStream connect() throws IOException {
        return ByteStream.of(SocketChannel.open(UnixDomainSocketAddress.of(socket)));
    }

    AgentClient client() throws Exception {
        return AgentClient.connect(connect(), CLIENT_OPTIONS);
    }

    RawPeer raw() throws IOException {
        return RawPeer.connect(socket);
    }

    @Override
    public void close() throws IOException {
        server.close();
        if (chardev != null) {
            chardev.close();
        }
    }
}
