package io.jrunc.shim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.Any;
import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import io.jrunc.containerd.api.TaskMethods;
import io.jrunc.containerd.api.cgroups.v2.Metrics;
import io.jrunc.containerd.api.events.TaskExecAdded;
import io.jrunc.containerd.api.events.TaskExecStarted;
import io.jrunc.containerd.api.events.TaskExit;
import io.jrunc.containerd.api.events.TaskStart;
import io.jrunc.containerd.api.runtimeoptions.Options;
import io.jrunc.containerd.api.services.events.Envelope;
import io.jrunc.containerd.api.task.v2.*;
import io.jrunc.ttrpc.ByteStream;
import io.jrunc.ttrpc.ClientOptions;
import io.jrunc.ttrpc.Code;
import io.jrunc.ttrpc.Dispatcher;
import io.jrunc.ttrpc.RpcException;
import io.jrunc.ttrpc.ServerOptions;
import io.jrunc.ttrpc.TtrpcClient;
import io.jrunc.ttrpc.TtrpcServer;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The task service over the project's ttRPC, with a back end whose processes exit while (or before)
 * their Start returns, and containerd's events service played by a fake Forward server: many tasks and
 * execs at once, as containerd drives a shim, and the events must arrive in containerd's order for each.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class ShimEventsTest {
    @TempDir
    Path dir;
    private FakeEventsServer events;
    private EventPublisher publisher;
    private TtrpcServer server;
    private TaskBackend backend;
    private final CountDownLatch shutdown = new CountDownLatch(1);
    private Path shimSocket;
    private Path bundle;

    private void startShim(int eventFailures) throws IOException {
        events = new FakeEventsServer(dir.resolve("events.sock"), eventFailures);
        publisher = new EventPublisher("unix://" + events.socket, Duration.ofMillis(5));
        EventOrder order = new EventOrder(publisher);
        backend = new FakeBackend(TaskService.callbacks(order));
        TaskService service = new TaskService(backend, order, ShimOptions.Backend.HOST, "default", shutdown::countDown);
        server = new TtrpcServer(service.register(new Dispatcher()), ServerOptions.DEFAULTS);
        shimSocket = dir.resolve("shim.sock");
        ServerSocketChannel listener = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        listener.bind(UnixDomainSocketAddress.of(shimSocket));
        Thread.ofVirtual().start(() -> {
            try {
                server.serveConnections(listener);
            } catch (IOException ignored) {
                // closed
            }
        });
        bundle = Files.createDirectories(dir.resolve("bundle"));
        Files.writeString(bundle.resolve("config.json"), "{}");
    }

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
        if (publisher != null) {
            publisher.close();
        }
        if (events != null) {
            events.close();
        }
    }

    private TtrpcClient connect() throws Exception {
        SocketChannel channel = SocketChannel.open(StandardProtocolFamily.UNIX);
        channel.connect(UnixDomainSocketAddress.of(shimSocket));
        return TtrpcClient.connect(ByteStream.of(channel), ClientOptions.DEFAULTS.withoutSync());
    }

    private CreateTaskRequest create(String id) {
        return CreateTaskRequest.newBuilder().setId(id).setBundle(bundle.toString()).build();
    }

    /** One task as containerd drives `ctr run --rm` with an exec: every call and its answer. */
    private void lifecycle(TtrpcClient c, String id) throws RpcException {
        int pid = c.call(TaskMethods.CREATE, create(id)).getPid();
        // the exec is added while the init has not started, and started after it
        c.call(TaskMethods.EXEC, ExecProcessRequest.newBuilder().setId(id).setExecId("e")
                .setSpec(Any.newBuilder().setTypeUrl("types.containerd.io/opencontainers/runtime-spec/1/Process")
                        .setValue(ByteString.copyFromUtf8("{\"args\":[\"true\"]}"))).build());
        c.call(TaskMethods.START, StartRequest.newBuilder().setId(id).setExecId("e").build());
        assertEquals(pid, c.call(TaskMethods.START, StartRequest.newBuilder().setId(id).build()).getPid());
        assertEquals(7, c.call(TaskMethods.WAIT, WaitRequest.newBuilder().setId(id).setExecId("e").build()).getExitStatus());
        assertEquals(7, c.call(TaskMethods.WAIT, WaitRequest.newBuilder().setId(id).build()).getExitStatus());
        c.call(TaskMethods.DELETE, DeleteRequest.newBuilder().setId(id).setExecId("e").build());
        DeleteResponse d = c.call(TaskMethods.DELETE, DeleteRequest.newBuilder().setId(id).build());
        assertEquals(pid, d.getPid());
        assertEquals(7, d.getExitStatus());
    }

    @Test
    void manyTasksAtOnceEachInContainerdsOrder() throws Exception {
        startShim(0);
        int tasks = 400;
        ExecutorService pool = Executors.newFixedThreadPool(16);
        List<Future<?>> runs = new ArrayList<>();
        try (TtrpcClient c = connect()) {
            for (int i = 0; i < tasks; i++) {
                String id = "t" + i;
                runs.add(pool.submit(() -> {
                    lifecycle(c, id);
                    return null;
                }));
            }
            for (Future<?> f : runs) {
                f.get();
            }
            c.call(TaskMethods.SHUTDOWN, ShutdownRequest.newBuilder().setId("t0").build());
        } finally {
            pool.shutdownNow();
        }
        assertTrue(publisher.drain(Duration.ofSeconds(60)), "events still queued");
        assertTrue(shutdown.await(10, TimeUnit.SECONDS), "Shutdown with no task left did not end the shim");

        Map<String, List<String>> byTask = new HashMap<>();
        for (Envelope e : events.received()) {
            assertEquals("default", e.getNamespace());
            String id = containerId(e);
            byTask.computeIfAbsent(id, k -> new ArrayList<>()).add(describe(e));
        }
        assertEquals(tasks, byTask.size());
        for (var entry : byTask.entrySet()) {
            List<String> seq = entry.getValue();
            String id = entry.getKey();
            // the init: create, start, exit, delete; the exec: added, started, exit; each once
            List<String> init = seq.stream().filter(s -> !s.contains(" e")).toList();
            List<String> exec = seq.stream().filter(s -> s.contains(" e")).toList();
            assertEquals(List.of("/tasks/create", "/tasks/start", "/tasks/exit " + id, "/tasks/delete"), init, id + ": " + seq);
            assertEquals(List.of("/tasks/exec-added e", "/tasks/exec-started e", "/tasks/exit e"), exec, id + ": " + seq);
            assertTrue(seq.indexOf("/tasks/create") < seq.indexOf("/tasks/exec-added e"), id + ": " + seq);
        }
        assertTrue(events.metadataNamespaces().stream().allMatch(n -> n.equals(List.of("default"))));
    }

    @Test
    void forwardFailuresAreRetriedInOrder() throws Exception {
        startShim(3);
        try (TtrpcClient c = connect()) {
            lifecycle(c, "r1");
        }
        assertTrue(publisher.drain(Duration.ofSeconds(30)), "events still queued");
        List<String> topics = events.received().stream().map(Envelope::getTopic).toList();
        assertEquals(7, topics.size(), topics.toString());
        assertEquals("/tasks/create", topics.getFirst());
        assertEquals("/tasks/delete", topics.getLast());
    }

    @Test
    void errorsCarryTheCodesContainerdMaps() throws Exception {
        startShim(0);
        try (TtrpcClient c = connect()) {
            assertCode(Code.NOT_FOUND, () -> c.call(TaskMethods.START, StartRequest.newBuilder().setId("nope").build()));
            c.call(TaskMethods.CREATE, create("dup"));
            assertCode(Code.ALREADY_EXISTS, () -> c.call(TaskMethods.CREATE, create("dup")));
            assertCode(Code.UNIMPLEMENTED, () -> c.call(TaskMethods.CHECKPOINT,
                    CheckpointTaskRequest.newBuilder().setId("dup").build()));
            RpcException e = assertCode(Code.INVALID_ARGUMENT, () -> c.call(TaskMethods.CREATE, CreateTaskRequest.newBuilder()
                    .setId("nobundle").setBundle(dir.resolve("missing").toString()).build()));
            assertEquals("bundle " + dir.resolve("missing") + " has no config.json", e.getMessage());
            e = assertCode(Code.INVALID_ARGUMENT, () -> c.call(TaskMethods.CREATE, create("badopt").toBuilder()
                    .setOptions(Any.newBuilder().setTypeUrl("runtimeoptions.v1.Options").setValue(Options.newBuilder()
                            .setConfigBody(ByteString.copyFromUtf8("colour = \"red\"")).build().toByteString()))
                    .build()));
            assertEquals("runtime options: config_body line 1: unknown option colour (known: backend, and the tables "
                    + "[host] and [vm])", e.getMessage());
            assertCode(Code.FAILED_PRECONDITION, () -> c.call(TaskMethods.CREATE, create("vm1").toBuilder()
                    .setOptions(Any.newBuilder().setTypeUrl("runtimeoptions.v1.Options").setValue(Options.newBuilder()
                            .setConfigBody(ByteString.copyFromUtf8("backend = \"vm\"")).build().toByteString()))
                    .build()));
            // an exec into a stopped task
            c.call(TaskMethods.KILL, KillRequest.newBuilder().setId("dup").setSignal(9).build());
            assertCode(Code.FAILED_PRECONDITION, () -> c.call(TaskMethods.EXEC,
                    ExecProcessRequest.newBuilder().setId("dup").setExecId("x").build()));
            // state and stats translate the back end's answers
            StateResponse s = c.call(TaskMethods.STATE, StateRequest.newBuilder().setId("dup").build());
            assertEquals(io.jrunc.containerd.api.types.task.Status.STOPPED, s.getStatus());
            assertEquals(137, s.getExitStatus());
            assertEquals(bundle.toString(), s.getBundle());
            Any stats = c.call(TaskMethods.STATS, StatsRequest.newBuilder().setId("dup").build()).getStats();
            assertEquals("io.containerd.cgroups.v2.Metrics", stats.getTypeUrl());
            Metrics m = Metrics.parseFrom(stats.getValue());
            assertEquals(5000, m.getCpu().getUsageUsec());
            assertEquals(4096, m.getMemory().getUsage());
            assertEquals(0, m.getMemory().getUsageLimit());
            assertEquals(1, m.getMemoryEvents().getOomKill());
            ConnectResponse connect = c.call(TaskMethods.CONNECT, ConnectRequest.newBuilder().setId("dup").build());
            assertEquals(ProcessHandle.current().pid(), connect.getShimPid());
            // Shutdown with a task left does not end the shim
            c.call(TaskMethods.SHUTDOWN, ShutdownRequest.newBuilder().setId("dup").setNow(true).build());
            assertEquals(false, shutdown.await(200, TimeUnit.MILLISECONDS));
        }
    }

    private interface Call {
        void run() throws Exception;
    }

    private static RpcException assertCode(Code code, Call call) {
        try {
            call.run();
        } catch (RpcException e) {
            assertEquals(code, e.code(), e.getMessage());
            return e;
        } catch (Exception e) {
            throw new AssertionError(e);
        }
        throw new AssertionError("expected " + code);
    }

    private static String containerId(Envelope e) throws InvalidProtocolBufferException {
        // every task event has container_id as field 1
        return TaskStart.parseFrom(e.getEvent().getValue()).getContainerId();
    }

    private static String describe(Envelope e) throws InvalidProtocolBufferException {
        ByteString v = e.getEvent().getValue();
        return switch (e.getTopic()) {
            case EventOrder.EXIT -> {
                assertEquals("containerd.events.TaskExit", e.getEvent().getTypeUrl());
                yield e.getTopic() + " " + TaskExit.parseFrom(v).getId();
            }
            case EventOrder.EXEC_ADDED -> e.getTopic() + " " + TaskExecAdded.parseFrom(v).getExecId();
            case EventOrder.EXEC_STARTED -> e.getTopic() + " " + TaskExecStarted.parseFrom(v).getExecId();
            default -> e.getTopic();
        };
    }
}
