package io.jrunc.shim.cli;

import com.google.protobuf.Empty;
import io.jrunc.containerd.api.EventsMethods;
import io.jrunc.containerd.api.TaskMethods;
import io.jrunc.containerd.api.task.v2.ConnectRequest;
import io.jrunc.containerd.api.task.v2.CreateTaskRequest;
import io.jrunc.containerd.api.task.v2.DeleteRequest;
import io.jrunc.containerd.api.task.v2.PidsRequest;
import io.jrunc.containerd.api.task.v2.StartRequest;
import io.jrunc.containerd.api.task.v2.StateRequest;
import io.jrunc.containerd.api.task.v2.WaitRequest;
import io.jrunc.shim.EventOrder;
import io.jrunc.shim.EventPublisher;
import io.jrunc.shim.ShimOptions;
import io.jrunc.shim.TaskService;
import io.jrunc.shim.host.HostTaskBackend;
import io.jrunc.ttrpc.ByteStream;
import io.jrunc.ttrpc.ClientOptions;
import io.jrunc.ttrpc.Dispatcher;
import io.jrunc.ttrpc.ServerOptions;
import io.jrunc.ttrpc.TtrpcClient;
import io.jrunc.ttrpc.TtrpcServer;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.time.Duration;

/**
 * The training run of the serving shim's AOT cache (the Makefile runs it under -XX:AOTCacheOutput with
 * the serving shim's flags): in one JVM, the task service with the host back end on a socket of its own,
 * events forwarded to a stand-in of containerd's events service, and a client that does what containerd
 * does for `ctr run --rm` (Create, State, Pids, Start, Wait, Delete, Connect) with a real busybox
 * container, a few times. Arguments: a bundle whose process exits at once, and a work directory.
 */
public final class ServeTraining {
    private ServeTraining() {
    }

    public static void main(String[] args) throws Exception {
        Path bundle = Path.of(args[0]).toAbsolutePath();
        Path work = Path.of(args[1]).toAbsolutePath();
        try (TtrpcServer events = serve(work.resolve("events.sock"), new Dispatcher()
                .register(EventsMethods.FORWARD, (context, request) -> Empty.getDefaultInstance()));
             EventPublisher publisher = new EventPublisher("unix://" + work.resolve("events.sock"), Duration.ofMillis(10))) {
            EventOrder order = new EventOrder(publisher);
            try (HostTaskBackend backend = new HostTaskBackend(TaskService.callbacks(order), work.resolve("state"))) {
                TaskService service = new TaskService(backend, order, ShimOptions.Backend.HOST, "training", () -> { });
                Path socket = work.resolve("shim.sock");
                try (TtrpcServer shim = serve(socket, service.register(new Dispatcher()));
                     TtrpcClient client = connect(socket)) {
                    for (int i = 0; i < 5; i++) {
                        String id = "shim-training-" + i;
                        client.call(TaskMethods.CREATE, CreateTaskRequest.newBuilder().setId(id)
                                .setBundle(bundle.toString()).build());
                        client.call(TaskMethods.STATE, StateRequest.newBuilder().setId(id).build());
                        client.call(TaskMethods.PIDS, PidsRequest.newBuilder().setId(id).build());
                        client.call(TaskMethods.CONNECT, ConnectRequest.newBuilder().setId(id).build());
                        client.call(TaskMethods.START, StartRequest.newBuilder().setId(id).build());
                        client.call(TaskMethods.WAIT, WaitRequest.newBuilder().setId(id).build());
                        client.call(TaskMethods.DELETE, DeleteRequest.newBuilder().setId(id).build());
                    }
                }
            }
            publisher.drain(Duration.ofSeconds(10));
        }
    }

    private static TtrpcServer serve(Path socket, Dispatcher dispatcher) throws IOException {
        TtrpcServer server = new TtrpcServer(dispatcher, ServerOptions.DEFAULTS);
        ServerSocketChannel listener = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        listener.bind(UnixDomainSocketAddress.of(socket));
        Thread.ofVirtual().start(() -> {
            try {
                server.serveConnections(listener);
            } catch (IOException ignored) {
                // closed
            }
        });
        return server;
    }

    private static TtrpcClient connect(Path socket) throws Exception {
        SocketChannel channel = SocketChannel.open(StandardProtocolFamily.UNIX);
        channel.connect(UnixDomainSocketAddress.of(socket));
        return TtrpcClient.connect(ByteStream.of(channel), ClientOptions.DEFAULTS.withoutSync());
    }
}
