package io.jrunc.vm.monitor;

import io.jrunc.agent.api.AgentMethods;
import io.jrunc.agent.api.AgentProtocol;
import io.jrunc.agent.api.pb.v1.ConfigurePodRequest;
import io.jrunc.agent.api.pb.v1.ContainerInfo;
import io.jrunc.agent.api.pb.v1.ContainerState;
import io.jrunc.agent.api.pb.v1.CreateContainerRequest;
import io.jrunc.agent.api.pb.v1.CreateContainerResponse;
import io.jrunc.agent.api.pb.v1.InspectContainerResponse;
import io.jrunc.agent.api.pb.v1.ListContainersResponse;
import io.jrunc.agent.api.pb.v1.OutputStream;
import io.jrunc.agent.api.pb.v1.ReadOutputResponse;
import io.jrunc.agent.api.pb.v1.RemoveContainerResponse;
import io.jrunc.ttrpc.ByteStream;
import io.jrunc.ttrpc.Code;
import io.jrunc.ttrpc.Dispatcher;
import io.jrunc.ttrpc.RpcException;
import io.jrunc.ttrpc.ServerOptions;
import io.jrunc.ttrpc.TtrpcServer;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.Pipe;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Stands in for the guest where no VM can boot on the build host: qemu's socket chardev and
 * virtserialport (one host client at a time on agent.sock; the guest's port one byte stream for ever,
 * never told that a client left, so a dead client's half frame stays in it, as qemu 7.2 behaves),
 * and behind it the protocol's real ttRPC port server with a few agent methods. What the monitor sends
 * is recorded for the tests.
 *
 * <p>Containers are in the state their id says, as the agent keeps them: "missing..." it does not
 * have, "created..." are created (not started), "stopped..." have stopped, the rest run. Remove without force refuses what is
 * not stopped, as the agent does. "slow..." take {@link #SLOW_CREATE} to create, "refused..." are
 * refused (INVALID_ARGUMENT), and an Inspect of "silent..." is never answered. A container's process
 * ends at once when it was created to run echo or true (Wait answers 0) or its id is "ends..." (3);
 * any other runs until it is stopped (143) or removed (137).
 */
final class StandInGuest implements AutoCloseable {
    final List<ConfigurePodRequest> configured = new CopyOnWriteArrayList<>();
    final List<CreateContainerRequest> created = new CopyOnWriteArrayList<>();
    /** AddSwap calls, and Configure/AddSwap/Create in the order they came. */
    final List<String> swaps = new CopyOnWriteArrayList<>();
    final List<String> calls = new CopyOnWriteArrayList<>();
    /** The time each Inspect had left when it arrived (empty: its caller set no deadline). */
    final List<java.util.Optional<Duration>> inspectDeadlines = new CopyOnWriteArrayList<>();
    final List<String> removed = new CopyOnWriteArrayList<>();
    /** Stop calls, as "ID:grace in ms". */
    final List<String> stops = new CopyOnWriteArrayList<>();
    /** Pause and Resume calls, as "pause ID" and "resume ID". */
    final List<String> freezes = new CopyOnWriteArrayList<>();
    static final Duration SLOW_CREATE = Duration.ofMillis(1500);
    final List<String> started = new CopyOnWriteArrayList<>();
    private final AtomicBoolean helloSent = new AtomicBoolean();
    final List<String> execs = new CopyOnWriteArrayList<>();
    /** Version calls: one per connection a client opens (through the monitor, one per CLI connection). */
    final java.util.concurrent.atomic.AtomicInteger versions = new java.util.concurrent.atomic.AtomicInteger();
    final List<String> signals = new CopyOnWriteArrayList<>();
    final StringBuffer stdin = new StringBuffer();
    final AtomicBoolean stdinClosed = new AtomicBoolean();
    final List<String> resizes = new CopyOnWriteArrayList<>();
    private final java.util.Set<String> outputSent = java.util.concurrent.ConcurrentHashMap.newKeySet();
    private final Pipe toGuest = Pipe.open();
    private final Pipe fromGuest = Pipe.open();
    private final ServerSocketChannel listener;
    private final TtrpcServer server;
    private volatile SocketChannel current;
    private volatile boolean closed;
    private final Object clientChanged = new Object();

    StandInGuest(Path chardevSocket) throws IOException {
        listener = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        listener.bind(UnixDomainSocketAddress.of(chardevSocket));
        Thread.ofPlatform().daemon().start(this::hostToGuest);
        Thread.ofPlatform().daemon().start(this::guestToHost);
        server = new TtrpcServer(dispatcher(), new ServerOptions(Duration.ofMillis(150), 64));
        ByteStream port = ByteStream.of(toGuest.source(), fromGuest.sink());
        Thread.ofVirtual().start(() -> server.servePort(port));
    }

    private Dispatcher dispatcher() {
        return new Dispatcher()
                .register(AgentMethods.VERSION, (ctx, q) -> {
                    versions.incrementAndGet();
                    return AgentProtocol.versionHandler("stand-in").handle(ctx, q);
                })
                .register(AgentMethods.Pod.ADD_SWAP, (ctx, q) -> {
                    swaps.add(q.getSerial());
                    calls.add("AddSwap");
                    return io.jrunc.agent.api.pb.v1.AddSwapResponse.getDefaultInstance();
                })
                .register(AgentMethods.Pod.CONFIGURE, (ctx, q) -> {
                    calls.add("Configure");
                    configured.add(q);
                    return io.jrunc.agent.api.pb.v1.ConfigurePodResponse.getDefaultInstance();
                })
                .register(AgentMethods.Pod.STATS, (ctx, q) -> io.jrunc.agent.api.pb.v1.PodStatsResponse.newBuilder()
                        .setMemTotalBytes(500L << 20).setMemAvailableBytes(300L << 20).setAgentCgroup("0::/agent").build())
                .register(AgentMethods.Containers.LIST, (ctx, q) -> ListContainersResponse.newBuilder()
                        .addContainers(ContainerInfo.newBuilder().setId("c1").setState(ContainerState.CONTAINER_STATE_RUNNING).setPid(7)).build())
                .register(AgentMethods.Containers.INSPECT, (ctx, q) -> {
                    inspectDeadlines.add(ctx.remaining());
                    if (q.getId().startsWith("missing") || removed.contains(q.getId())) {
                        throw new RpcException(Code.NOT_FOUND, "container \"" + q.getId() + "\" does not exist");
                    }
                    if (q.getId().startsWith("silent")) {
                        Thread.sleep(Duration.ofSeconds(60));
                    }
                    return InspectContainerResponse.newBuilder().setContainer(ContainerInfo.newBuilder().setId(q.getId())
                            .setState(state(q.getId())).setPid(7)).build();
                })
                .register(AgentMethods.Containers.CREATE, (ctx, q) -> {
                    if (q.getId().startsWith("refused")) {
                        throw new RpcException(Code.INVALID_ARGUMENT, "container " + q.getId() + ": refused by the stand-in");
                    }
                    if (q.getId().startsWith("slow")) {
                        Thread.sleep(SLOW_CREATE);
                    }
                    calls.add("Create");
                    created.add(q);
                    removed.remove(q.getId()); // the id is taken again
                    return CreateContainerResponse.newBuilder().setPid(42).build();
                })
                .register(AgentMethods.Containers.START, (ctx, q) -> {
                    started.add(q.getId());
                    return io.jrunc.agent.api.pb.v1.StartContainerResponse.getDefaultInstance();
                })
                .register(AgentMethods.Containers.REMOVE, (ctx, q) -> {
                    if (q.getId().startsWith("missing") || removed.contains(q.getId())) {
                        throw new RpcException(Code.NOT_FOUND, "container \"" + q.getId() + "\" does not exist");
                    }
                    if (!q.getForce() && state(q.getId()) != ContainerState.CONTAINER_STATE_STOPPED) {
                        throw new RpcException(Code.FAILED_PRECONDITION, "container " + q.getId() + " is "
                                + state(q.getId()) + ": stop it first, or remove with force");
                    }
                    removed.add(q.getId());
                    return RemoveContainerResponse.getDefaultInstance();
                })
                .register(AgentMethods.Processes.EXEC, (ctx, q) -> {
                    if (q.getProcess().getArgs(0).equals("/bin/no-such")) {
                        throw new RpcException(Code.NOT_FOUND, "exec: \"/bin/no-such\": executable file not found in $PATH");
                    }
                    execs.add(q.getExecId() + ":" + String.join(" ", q.getProcess().getArgsList())
                            + (q.getProcess().getTerminal() ? " tty=" + q.getProcess().getConsoleSize().getRows() + "x"
                            + q.getProcess().getConsoleSize().getColumns() : ""));
                    return io.jrunc.agent.api.pb.v1.ExecResponse.newBuilder().setPid(99).build();
                })
                .register(AgentMethods.Processes.WAIT, (ctx, q) -> {
                    // an exec of cat ends, as cat does, when its stdin is closed
                    boolean cat = execs.stream().anyMatch(e -> e.equals(q.getProcess().getExecId() + ":cat"));
                    for (int i = 0; cat && !stdinClosed.get() && i < 100; i++) {
                        Thread.sleep(50);
                    }
                    String id = q.getProcess().getContainerId();
                    int code = !q.getProcess().getExecId().isEmpty() ? 7 : id.startsWith("ends") ? 3 : 0;
                    if (q.getProcess().getExecId().isEmpty() && !endsAtOnce(id)) {
                        while (!closed && stops.stream().noneMatch(s -> s.startsWith(id + ":")) && !removed.contains(id)) {
                            Thread.sleep(20);
                        }
                        code = removed.contains(id) ? 137 : 143;
                    }
                    return io.jrunc.agent.api.pb.v1.WaitResponse.newBuilder()
                            .setStatus(io.jrunc.agent.api.pb.v1.ExitStatus.newBuilder().setCode(code)).build();
                })
                .register(AgentMethods.Containers.PAUSE, (ctx, q) -> {
                    freezes.add("pause " + q.getId());
                    return io.jrunc.agent.api.pb.v1.PauseContainerResponse.getDefaultInstance();
                })
                .register(AgentMethods.Containers.RESUME, (ctx, q) -> {
                    freezes.add("resume " + q.getId());
                    return io.jrunc.agent.api.pb.v1.ResumeContainerResponse.getDefaultInstance();
                })
                .register(AgentMethods.Processes.WRITE_STDIN, (ctx, q) -> {
                    stdin.append(q.getData().toStringUtf8());
                    return io.jrunc.agent.api.pb.v1.WriteStdinResponse.newBuilder().setWritten(q.getData().size()).build();
                })
                .register(AgentMethods.Processes.CLOSE_STDIN, (ctx, q) -> {
                    stdinClosed.set(true);
                    return io.jrunc.agent.api.pb.v1.CloseStdinResponse.getDefaultInstance();
                })
                .register(AgentMethods.Processes.SIGNAL, (ctx, q) -> {
                    signals.add(q.getProcess().getContainerId() + ":" + q.getSignal());
                    return io.jrunc.agent.api.pb.v1.SignalResponse.getDefaultInstance();
                })
                .register(AgentMethods.Containers.STOP, (ctx, q) -> {
                    stops.add(q.getId() + ":" + q.getGraceNanos() / 1_000_000);
                    return io.jrunc.agent.api.pb.v1.StopContainerResponse.newBuilder()
                            .setStatus(io.jrunc.agent.api.pb.v1.ExitStatus.newBuilder().setCode(143).setSignal(15)).build();
                })
                .register(AgentMethods.Processes.READ_OUTPUT, (ctx, q) -> {
                    String exec = q.getProcess().getExecId();
                    if (!exec.isEmpty()) {
                        // an exec says "out" on stdout and "err" on stderr, once each
                        String key = exec + "/" + q.getStream();
                        if (outputSent.add(key)) {
                            return ReadOutputResponse.newBuilder().setData(com.google.protobuf.ByteString.copyFromUtf8(
                                    q.getStream() == OutputStream.OUTPUT_STREAM_STDOUT ? "out\n" : "err\n")).build();
                        }
                        return ReadOutputResponse.newBuilder().setEof(true).build();
                    }
                    // c1's stdout says hello once, another container's "hello from ID"; then end of file
                    String id = q.getProcess().getContainerId();
                    if (id.equals("late") && q.getStream() == OutputStream.OUTPUT_STREAM_STDOUT && outputSent.add(id)) {
                        // output still on its way well after Wait answered (a loaded guest): 0.8 s
                        Thread.sleep(800);
                        return ReadOutputResponse.newBuilder().setData(com.google.protobuf.ByteString.copyFromUtf8("late output\n")).build();
                    }
                    if (id.equals("c1") && q.getStream() == OutputStream.OUTPUT_STREAM_STDOUT
                            && helloSent.compareAndSet(false, true)) {
                        return ReadOutputResponse.newBuilder().setData(com.google.protobuf.ByteString.copyFromUtf8("hello\n")).build();
                    }
                    if (!id.equals("c1") && q.getStream() == OutputStream.OUTPUT_STREAM_STDOUT && outputSent.add(id)) {
                        return ReadOutputResponse.newBuilder().setData(com.google.protobuf.ByteString.copyFromUtf8("hello from " + id + "\n")).build();
                    }
                    return ReadOutputResponse.newBuilder().setEof(true).build();
                });
    }

    /** Whether the container's process ends by itself at once (see the class comment). */
    private boolean endsAtOnce(String id) {
        if (id.startsWith("ends")) {
            return true;
        }
        return created.stream().filter(q -> q.getId().equals(id)).reduce((a, b) -> b)
                .map(q -> q.getOciConfig().toStringUtf8().replace(" ", ""))
                .map(config -> config.contains("\"args\":[\"echo\"") || config.contains("\"args\":[\"true\"]"))
                .orElse(false);
    }

    /** What state the agent would report: by the id (see the class comment); a removed one is gone. */
    ContainerState state(String id) {
        if (removed.contains(id)) {
            return ContainerState.CONTAINER_STATE_UNSPECIFIED;
        }
        if (id.startsWith("stopped")) {
            return ContainerState.CONTAINER_STATE_STOPPED;
        }
        return id.startsWith("created") ? ContainerState.CONTAINER_STATE_CREATED : ContainerState.CONTAINER_STATE_RUNNING;
    }

    private void hostToGuest() {
        ByteBuffer buf = ByteBuffer.allocate(8192);
        while (!closed) {
            try (SocketChannel client = listener.accept()) {
                synchronized (clientChanged) {
                    current = client;
                    clientChanged.notifyAll();
                }
                while (true) {
                    buf.clear();
                    if (client.read(buf) < 0) {
                        break;
                    }
                    buf.flip();
                    while (buf.hasRemaining()) {
                        toGuest.sink().write(buf);
                    }
                }
            } catch (IOException e) {
                // the client went, or closing
            } finally {
                current = null;
            }
        }
    }

    /** The guest's writes wait for a host client, as a virtio-serial port's do. */
    private void guestToHost() {
        ByteBuffer buf = ByteBuffer.allocate(8192);
        while (!closed) {
            try {
                buf.clear();
                if (fromGuest.source().read(buf) < 0) {
                    return;
                }
                buf.flip();
                while (buf.hasRemaining() && !closed) {
                    SocketChannel c;
                    synchronized (clientChanged) {
                        while ((c = current) == null && !closed) {
                            clientChanged.wait(100);
                        }
                    }
                    try {
                        c.write(buf);
                    } catch (IOException | NullPointerException e) {
                        buf.clear().limit(0); // written to a client that went: lost, as with qemu
                    }
                }
            } catch (IOException | InterruptedException e) {
                return;
            }
        }
    }

    @Override
    public void close() throws IOException {
        closed = true;
        server.close();
        listener.close();
        toGuest.sink().close();
        fromGuest.source().close();
    }
}
