package io.jrunc.ttrpc;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import io.jrunc.ttrpc.pb.Request;
import io.jrunc.ttrpc.pb.Response;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A ttRPC client over any byte stream. Calls may run concurrently on one stream: each gets the next
 * odd stream id and one reader thread hands each response to the call with that id.
 *
 * <p>On connecting it synchronises (docs/protocol.md, "Resynchronisation"): it sends a sync preamble
 * with a fresh nonce, resending it until the server acknowledges that nonce, and discards everything
 * before the acknowledgement (answers meant for a client that was killed, the rest of its half
 * message). Once the stream fails every pending and later call fails with UNAVAILABLE: a client is
 * not reused, the caller connects anew.
 */
public final class TtrpcClient implements AutoCloseable {
    /**
     * The logger, made on first use: System.getLogger sets up java.util.logging's LogManager (its
     * configuration read, its root logger made), which a CLI call that logs nothing would pay at start.
     */
    private static final class Log {
        static final System.Logger LOG = System.getLogger(TtrpcClient.class.getName());
    }

    private final ByteStream stream;
    private final ClientOptions options;
    private final FrameReader reader;
    private final FrameWriter writer;
    private final ReentrantLock writeLock = new ReentrantLock();
    private final Map<Integer, CompletableFuture<Response>> pending = new ConcurrentHashMap<>();
    private final AtomicInteger nextStreamId = new AtomicInteger(1);
    private final CompletableFuture<Void> synced = new CompletableFuture<>();
    private volatile RpcException failure;

    private TtrpcClient(ByteStream stream, ClientOptions options) {
        this.stream = stream;
        this.options = options;
        this.reader = new FrameReader(stream);
        this.writer = new FrameWriter(stream);
    }

    /** Takes the stream over and synchronises with the server; the stream is closed if that fails. */
    public static TtrpcClient connect(ByteStream stream, ClientOptions options) throws RpcException {
        TtrpcClient client = new TtrpcClient(stream, options);
        client.start();
        return client;
    }

    private void start() throws RpcException {
        byte[] nonce = options.synchronise() ? Sync.newNonce() : null;
        // a platform thread, not a virtual one: a virtual thread blocked on a socket starts the JDK's
        // poller, a thread that stays in epoll_wait for the JVM's life, and a JVM's exit waits 300 ms on
        // such a thread (a short-lived CLI paid that on every call that connected);
        // this one's read returns when close() closes the stream, and it ends before the exit
        Thread.ofPlatform().daemon().name("ttrpc-client-reader").start(() -> readLoop(nonce));
        if (nonce == null) {
            return;
        }
        long deadline = System.nanoTime() + options.syncTimeout().toNanos();
        while (true) {
            writeLock.lock();
            try {
                writer.writeSync(Sync.Kind.PREAMBLE, nonce);
            } catch (IOException e) {
                fail(Code.UNAVAILABLE, "sending the sync preamble: " + e);
            } finally {
                writeLock.unlock();
            }
            long wait = Math.min(options.syncResendInterval().toNanos(), deadline - System.nanoTime());
            try {
                synced.get(Math.max(0, wait), TimeUnit.NANOSECONDS);
                return;
            } catch (TimeoutException e) {
                if (System.nanoTime() - deadline >= 0) {
                    fail(Code.UNAVAILABLE, "no sync acknowledgement within " + options.syncTimeout().toMillis() + " ms");
                    throw failure;
                }
            } catch (ExecutionException e) {
                throw rethrown(e.getCause());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                fail(Code.CANCELLED, "interrupted while synchronising");
                throw failure;
            }
        }
    }

    /** Calls a method with the options' call timeout. */
    public <Q extends Message, R extends Message> R call(Method<Q, R> method, Q request) throws RpcException {
        return call(method, request, options.callTimeout());
    }

    /** Calls a method and waits for its response; {@code timeout} zero waits for ever. */
    public <Q extends Message, R extends Message> R call(Method<Q, R> method, Q request, Duration timeout)
            throws RpcException {
        Request.Builder envelope = Request.newBuilder()
                .setService(method.service())
                .setMethod(method.name())
                .setPayload(request.toByteString());
        if (!timeout.isZero()) {
            envelope.setTimeoutNano(timeout.toNanos());
        }
        Response response = await(send(envelope.build()), method, timeout);
        if (response.hasStatus() && response.getStatus().getCode() != Code.OK.value()) {
            throw RpcException.of(response.getStatus());
        }
        try {
            return method.responseParser().parseFrom(response.getPayload());
        } catch (InvalidProtocolBufferException e) {
            throw new RpcException(Code.INTERNAL, "bad " + method + " response: " + e.getMessage(), e);
        }
    }

    /**
     * Sends a request on the next stream id; the future completes with the server's Response (whatever
     * its status) or fails with an {@link RpcException}. Cancelling it forgets the call.
     */
    public CompletableFuture<Response> send(Request request) {
        RpcException failed = failure;
        if (failed != null) {
            return CompletableFuture.failedFuture(failed);
        }
        byte[] data = request.toByteArray();
        if (data.length > FrameHeader.MAX_DATA_LENGTH) {
            return CompletableFuture.failedFuture(new RpcException(Code.RESOURCE_EXHAUSTED, "request of "
                    + data.length + " bytes exceeds the maximum message size of " + FrameHeader.MAX_DATA_LENGTH));
        }
        int streamId = nextStreamId.getAndAdd(2);
        if (streamId < 0) {
            // 2^31 calls on one stream: ids would wrap onto calls that may still be pending.
            return CompletableFuture.failedFuture(new RpcException(Code.RESOURCE_EXHAUSTED, "stream ids used up: reconnect"));
        }
        CompletableFuture<Response> future = new CompletableFuture<>();
        pending.put(streamId, future);
        future.whenComplete((response, error) -> pending.remove(streamId, future));
        writeLock.lock();
        try {
            failed = failure;
            if (failed != null) {
                future.completeExceptionally(failed);
            } else {
                writer.write(Frame.of(streamId, FrameHeader.TYPE_REQUEST, 0, data));
            }
        } catch (IOException e) {
            fail(Code.UNAVAILABLE, "sending a request: " + e);
        } finally {
            writeLock.unlock();
        }
        return future;
    }

    private Response await(CompletableFuture<Response> future, Method<?, ?> method, Duration timeout)
            throws RpcException {
        try {
            return timeout.isZero() ? future.get() : future.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            future.cancel(false);
            throw new RpcException(Code.DEADLINE_EXCEEDED, method + ": no response within " + timeout.toMillis() + " ms");
        } catch (ExecutionException e) {
            throw rethrown(e.getCause());
        } catch (CancellationException e) {
            throw new RpcException(Code.CANCELLED, method + " cancelled");
        } catch (InterruptedException e) {
            future.cancel(false);
            Thread.currentThread().interrupt();
            throw new RpcException(Code.CANCELLED, method + " interrupted");
        }
    }

    private void readLoop(byte[] nonce) {
        try {
            if (nonce != null) {
                while (true) {
                    byte[] got = reader.hunt(Sync.Kind.ACK);
                    if (got == null) {
                        fail(Code.UNAVAILABLE, "the stream ended before the sync acknowledgement");
                        return;
                    }
                    if (Arrays.equals(got, nonce)) {
                        break;
                    }
                    // An acknowledgement meant for an earlier client: keep looking.
                }
                if (reader.discarded() > 0) {
                    Log.LOG.log(Level.DEBUG, "discarded " + reader.discarded() + " bytes before the sync acknowledgement");
                }
                synced.complete(null);
            }
            // instanceof patterns, not a pattern switch: a switch on a sealed type is linked by a
            // bootstrap that spins a class at run time (SwitchBootstraps), a few ms of every CLI call
            // that connects, which an AOT cache does not hold
            while (true) {
                Inbound in = reader.next();
                if (in instanceof Inbound.FrameIn(Frame frame)) {
                    onFrame(frame);
                } else if (in instanceof Inbound.SyncIn(Sync.Kind kind, byte[] n)) {
                    if (kind != Sync.Kind.ACK) {
                        fail(Code.UNAVAILABLE, "a sync preamble from the server");
                        return;
                    }
                    // A late answer to a preamble that was resent: harmless.
                } else if (in instanceof Inbound.Oversized(FrameHeader header)) {
                    fail(Code.UNAVAILABLE, "the server sent a message of " + header.length()
                            + " bytes, over the maximum of " + FrameHeader.MAX_DATA_LENGTH);
                    return;
                } else if (in instanceof Inbound.OutOfSync(String reason)) {
                    fail(Code.UNAVAILABLE, "lost the framing: " + reason);
                    return;
                } else {
                    fail(Code.UNAVAILABLE, "the connection closed"); // Inbound.End
                    return;
                }
            }
        } catch (IOException e) {
            fail(Code.UNAVAILABLE, "reading: " + e);
        }
    }

    private void onFrame(Frame frame) {
        FrameHeader header = frame.header();
        if (header.type() != FrameHeader.TYPE_RESPONSE) {
            Log.LOG.log(Level.DEBUG, "ignoring a frame of type " + header.type() + " on stream " + header.streamIdText());
            return;
        }
        CompletableFuture<Response> future = pending.remove(header.streamId());
        if (future == null) {
            // The answer to a call that timed out or was cancelled.
            return;
        }
        try {
            future.complete(Response.parseFrom(frame.data()));
        } catch (InvalidProtocolBufferException e) {
            future.completeExceptionally(new RpcException(Code.INTERNAL, "bad response envelope: " + e.getMessage()));
        }
    }

    /** Ends the client: every pending and later call fails with this. */
    private void fail(Code code, String message) {
        RpcException error;
        writeLock.lock();
        try {
            if (failure == null) {
                failure = new RpcException(code, message);
            }
            error = failure;
        } finally {
            writeLock.unlock();
        }
        synced.completeExceptionally(error);
        for (CompletableFuture<Response> future : pending.values()) {
            future.completeExceptionally(error);
        }
        try {
            stream.close();
        } catch (IOException e) {
            Log.LOG.log(Level.DEBUG, "close: " + e);
        }
    }

    private static RpcException rethrown(Throwable cause) {
        if (cause instanceof RpcException e) {
            // Thrown again here so the trace shows the caller, with the reader's as the cause.
            return new RpcException(e.code(), e.getMessage(), e);
        }
        return new RpcException(Code.INTERNAL, String.valueOf(cause), cause);
    }

    public boolean isOpen() {
        return failure == null;
    }

    @Override
    public void close() {
        fail(Code.UNAVAILABLE, "the client was closed");
    }
}
