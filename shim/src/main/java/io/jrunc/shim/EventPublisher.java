package io.jrunc.shim;

import com.google.protobuf.Any;
import com.google.protobuf.Message;
import io.jrunc.containerd.api.EventsMethods;
import io.jrunc.containerd.api.services.events.Envelope;
import io.jrunc.containerd.api.services.events.ForwardRequest;
import io.jrunc.ttrpc.ByteStream;
import io.jrunc.ttrpc.ClientOptions;
import io.jrunc.ttrpc.Code;
import io.jrunc.ttrpc.RpcException;
import io.jrunc.ttrpc.TtrpcClient;
import io.jrunc.ttrpc.pb.KeyValue;
import io.jrunc.ttrpc.pb.Request;
import io.jrunc.ttrpc.pb.Response;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Sends events to containerd: {@code containerd.services.events.ttrpc.v1.Events/Forward} on its ttRPC
 * socket (TTRPC_ADDRESS), one at a time from one queue, so they arrive in the order {@link EventOrder}
 * put them. A failed Forward is tried again on a fresh connection ({@value #ATTEMPTS} attempts, each
 * with a {@value #CALL_TIMEOUT_SECONDS} s deadline, as containerd's own publisher does); an event that
 * still fails is logged and dropped, so that one event cannot hold up all later ones for ever.
 * While nothing listens on the socket (containerd restarting, while its tasks and their shims go on)
 * an event waits for it instead, for up to {@value #UNREACHABLE_SECONDS} s, trying at least every
 * second, so that an exit that happened meanwhile reaches the containerd that comes back, in its place.
 */
public final class EventPublisher implements EventSink, AutoCloseable {
    private static final System.Logger LOG = System.getLogger(EventPublisher.class.getName());
    static final int ATTEMPTS = 5;
    static final int CALL_TIMEOUT_SECONDS = 5;
    static final int UNREACHABLE_SECONDS = 60;
    private static final Duration LONGEST_WAIT = Duration.ofSeconds(1);
    /** The metadata key containerd reads the namespace of a ttRPC call from. */
    public static final String NAMESPACE_KEY = "containerd-namespace-ttrpc";

    private record Pending(Envelope envelope) {
    }

    private static final Pending STOP = new Pending(null);

    private final Path socket;
    private final Duration retryDelay;
    private final LinkedBlockingQueue<Pending> queue = new LinkedBlockingQueue<>();
    private final Thread sender;
    private final Object idle = new Object();
    private int inFlight;
    private TtrpcClient client;

    /** Publishes to the ttRPC socket at {@code address} ("unix:///path" or a path). */
    public EventPublisher(String address, Duration retryDelay) {
        this.socket = ShimAddress.pathOf(address);
        this.retryDelay = retryDelay;
        this.sender = Thread.ofPlatform().daemon().name("shim-events").start(this::run);
    }

    @Override
    public void publish(String namespace, String topic, Message event) {
        Envelope envelope = Envelope.newBuilder()
                .setTimestamp(EventOrder.timestamp(Instant.now()))
                .setNamespace(namespace).setTopic(topic)
                .setEvent(Any.newBuilder().setTypeUrl(event.getDescriptorForType().getFullName())
                        .setValue(event.toByteString()))
                .build();
        synchronized (idle) {
            inFlight++;
        }
        queue.add(new Pending(envelope));
    }

    /** Waits until every event published so far was sent (or dropped), for at most {@code timeout}. */
    public boolean drain(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (idle) {
            while (inFlight > 0) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                TimeUnit.NANOSECONDS.timedWait(idle, left);
            }
        }
        return true;
    }

    private void run() {
        while (true) {
            Pending next;
            try {
                next = queue.take();
            } catch (InterruptedException e) {
                return;
            }
            if (next == STOP) {
                return;
            }
            send(next.envelope());
            synchronized (idle) {
                inFlight--;
                idle.notifyAll();
            }
        }
    }

    private void send(Envelope envelope) {
        Request request = Request.newBuilder()
                .setService(EventsMethods.FORWARD.service()).setMethod(EventsMethods.FORWARD.name())
                .setPayload(ForwardRequest.newBuilder().setEnvelope(envelope).build().toByteString())
                .setTimeoutNano(TimeUnit.SECONDS.toNanos(CALL_TIMEOUT_SECONDS))
                .addMetadata(KeyValue.newBuilder().setKey(NAMESPACE_KEY).setValue(envelope.getNamespace()))
                .build();
        long firstTry = System.nanoTime();
        int waits = 0;
        for (int attempt = 1; ; attempt++) {
            boolean connected = false;
            try {
                TtrpcClient c = client();
                connected = true;
                Response response = c.send(request).get(CALL_TIMEOUT_SECONDS, TimeUnit.SECONDS);
                if (!response.hasStatus() || response.getStatus().getCode() == Code.OK.value()) {
                    return;
                }
                throw RpcException.of(response.getStatus());
            } catch (Exception e) {
                if (e instanceof InterruptedException) {
                    Thread.currentThread().interrupt();
                    return;
                }
                disconnect();
                if (!connected && e instanceof IOException) {
                    // nobody listens: the call was not made, so no attempt is used up
                    attempt--;
                    if (System.nanoTime() - firstTry > TimeUnit.SECONDS.toNanos(UNREACHABLE_SECONDS)) {
                        LOG.log(System.Logger.Level.ERROR, "event " + envelope.getTopic() + " dropped: " + socket
                                + " unreachable for " + UNREACHABLE_SECONDS + " s: " + e);
                        return;
                    }
                    Duration wait = retryDelay.multipliedBy(1L << Math.min(waits++, 20));
                    if (!pause(wait.compareTo(LONGEST_WAIT) > 0 ? LONGEST_WAIT : wait)) {
                        return;
                    }
                    continue;
                }
                if (attempt >= ATTEMPTS) {
                    LOG.log(System.Logger.Level.ERROR, "event " + envelope.getTopic() + " dropped after "
                            + ATTEMPTS + " attempts: " + (e instanceof TimeoutException ? "timed out" : e));
                    return;
                }
                if (!pause(retryDelay.multipliedBy(1L << (attempt - 1)))) {
                    return;
                }
            }
        }
    }

    /** Sleeps; false when interrupted (the publisher is closing). */
    private static boolean pause(Duration wait) {
        try {
            Thread.sleep(wait);
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private TtrpcClient client() throws IOException, RpcException {
        if (client == null || !client.isOpen()) {
            SocketChannel channel = SocketChannel.open(StandardProtocolFamily.UNIX);
            try {
                channel.connect(UnixDomainSocketAddress.of(socket));
            } catch (IOException e) {
                channel.close();
                throw e;
            }
            // containerd's ttRPC server is a plain one: no sync preamble.
            client = TtrpcClient.connect(ByteStream.of(channel), ClientOptions.DEFAULTS.withoutSync());
        }
        return client;
    }

    private void disconnect() {
        if (client != null) {
            client.close();
            client = null;
        }
    }

    @Override
    public void close() {
        queue.add(STOP);
        try {
            sender.join(TimeUnit.SECONDS.toMillis(1));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        disconnect();
    }
}
