package io.jrunc.ttrpc;

import com.google.protobuf.InvalidProtocolBufferException;
import io.jrunc.ttrpc.pb.KeyValue;
import io.jrunc.ttrpc.pb.Request;
import io.jrunc.ttrpc.pb.Response;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The server's side of one byte stream: reads messages, runs each request on its own virtual thread,
 * writes the responses, and decides what happens when the stream loses its framing.
 *
 * <p>Two kinds of stream. A <em>connection</em> (a Unix or vsock socket) belongs to one client: when
 * its framing breaks the session answers what it can and closes it, and the client reconnects. A
 * <em>port</em> (a virtio-serial port) outlives its clients, which come and go without the guest
 * being told, so the session cannot close it: it hunts for the next client's sync preamble instead.
 *
 * <p>Each preamble starts an epoch. Responses are written only if their request came in the current
 * epoch, checked under the write lock, so a new client never receives answers to calls of the
 * client before it (which could carry the same stream ids).
 */
final class ServerSession implements Runnable {
    private static final System.Logger LOG = System.getLogger(ServerSession.class.getName());

    private final ByteStream stream;
    private final Dispatcher dispatcher;
    private final boolean port;
    private final FrameReader reader;
    private final FrameWriter writer;
    private final ReentrantLock writeLock = new ReentrantLock();
    private final Semaphore inFlight;
    /** Stream ids of calls running, with the epoch each came in. */
    private final Map<Integer, Long> running = new ConcurrentHashMap<>();
    private final ThreadFactory callThreads = Thread.ofVirtual().name("ttrpc-call-", 0).factory();
    private final String name;
    /** Written under writeLock; read anywhere. */
    private volatile long epoch;

    ServerSession(String name, ByteStream stream, Dispatcher dispatcher, ServerOptions options, boolean port) {
        this.name = name;
        this.stream = stream;
        this.dispatcher = dispatcher;
        this.port = port;
        this.reader = port ? new FrameReader(stream, options.stallTimeout()) : new FrameReader(stream);
        this.writer = new FrameWriter(stream);
        this.inFlight = new Semaphore(options.maxInFlight());
    }

    @Override
    public void run() {
        try {
            serve();
        } catch (IOException e) {
            LOG.log(Level.DEBUG, name + ": stream failed: " + e);
        } finally {
            endEpoch();
            close();
        }
    }

    void close() {
        try {
            stream.close();
        } catch (IOException e) {
            LOG.log(Level.DEBUG, name + ": close: " + e);
        }
    }

    private void serve() throws IOException {
        boolean more = true;
        while (more) {
            more = next(reader.next());
        }
    }

    /**
     * Acts on one inbound item; whether to go on reading. instanceof patterns, not a pattern switch,
     * as in the client's reader: a switch on a sealed type is linked at its first run by a class spun
     * at run time, which no AOT cache holds (the agent's first request paid for it under emulation).
     */
    private boolean next(Inbound in) throws IOException {
        if (in instanceof Inbound.FrameIn(Frame frame)) {
            onFrame(frame);
            return true;
        } else if (in instanceof Inbound.SyncIn(Sync.Kind kind, byte[] nonce)) {
            if (kind != Sync.Kind.PREAMBLE) {
                return lostFraming("a sync acknowledgement, which only a server sends");
            }
            acknowledge(nonce);
            return true;
        } else if (in instanceof Inbound.Oversized(FrameHeader header)) {
            // Answered on its stream (ttRPC's own server does the same), but its data is never read:
            // the stream cannot be followed past it.
            reply(header.streamId(), epoch, Dispatcher.error(Code.RESOURCE_EXHAUSTED,
                    "message length " + header.length() + " exceeds the maximum message size of "
                            + FrameHeader.MAX_DATA_LENGTH));
            return lostFraming("an oversized frame on stream " + header.streamIdText());
        } else if (in instanceof Inbound.OutOfSync(String reason)) {
            return lostFraming(reason);
        }
        return false; // Inbound.End
    }

    /** A connection is closed; a port hunts for the next preamble. Returns whether to go on reading. */
    private boolean lostFraming(String reason) throws IOException {
        if (!port) {
            LOG.log(Level.WARNING, name + ": closing: " + reason);
            return false;
        }
        LOG.log(Level.WARNING, name + ": out of sync (" + reason + "): discarding input until a sync preamble");
        endEpoch();
        byte[] nonce = reader.hunt(Sync.Kind.PREAMBLE);
        if (nonce == null) {
            return false;
        }
        LOG.log(Level.INFO, name + ": resynchronised after discarding " + reader.discarded() + " bytes");
        acknowledge(nonce);
        return true;
    }

    /** Starts a new epoch and says so to the client whose preamble carried this nonce. */
    private void acknowledge(byte[] nonce) throws IOException {
        writeLock.lock();
        try {
            endEpoch();
            writer.writeSync(Sync.Kind.ACK, nonce);
        } finally {
            writeLock.unlock();
        }
    }

    /** From here on, calls already running answer no one. */
    private void endEpoch() {
        writeLock.lock();
        try {
            epoch++;
            running.clear();
        } finally {
            writeLock.unlock();
        }
    }

    private void onFrame(Frame frame) {
        FrameHeader header = frame.header();
        int streamId = header.streamId();
        long callEpoch = epoch;
        switch (header.type()) {
            case FrameHeader.TYPE_REQUEST -> onRequest(frame, callEpoch);
            case FrameHeader.TYPE_RESPONSE -> reply(streamId, callEpoch,
                    Dispatcher.error(Code.INVALID_ARGUMENT, "a response frame from a client"));
            case FrameHeader.TYPE_DATA -> reply(streamId, callEpoch,
                    Dispatcher.error(Code.UNIMPLEMENTED, "data frames: every method is unary"));
            default -> reply(streamId, callEpoch,
                    Dispatcher.error(Code.INVALID_ARGUMENT, "unknown message type " + header.type()));
        }
    }

    private void onRequest(Frame frame, long callEpoch) {
        FrameHeader header = frame.header();
        int streamId = header.streamId();
        if ((streamId & 1) == 0) {
            reply(streamId, callEpoch, Dispatcher.error(Code.INVALID_ARGUMENT,
                    "stream id " + header.streamIdText() + " is even: a client's streams are odd"));
            return;
        }
        if (header.flags() != 0) {
            reply(streamId, callEpoch, Dispatcher.error(Code.UNIMPLEMENTED,
                    String.format("streaming requests (flags 0x%02x): every method is unary", header.flags())));
            return;
        }
        Request request;
        try {
            request = Request.parseFrom(frame.data());
        } catch (InvalidProtocolBufferException e) {
            reply(streamId, callEpoch, Dispatcher.error(Code.INVALID_ARGUMENT, "bad request: " + e.getMessage()));
            return;
        }
        if (running.putIfAbsent(streamId, callEpoch) != null) {
            reply(streamId, callEpoch, Dispatcher.error(Code.INVALID_ARGUMENT,
                    "stream " + header.streamIdText() + " is already in use"));
            return;
        }
        if (!inFlight.tryAcquire()) {
            running.remove(streamId, callEpoch);
            reply(streamId, callEpoch, Dispatcher.error(Code.RESOURCE_EXHAUSTED, "too many calls in flight"));
            return;
        }
        CallContext context = new CallContext(streamId, deadline(request.getTimeoutNano()), metadata(request));
        callThreads.newThread(() -> {
            try {
                reply(streamId, callEpoch, dispatcher.dispatch(context, request));
            } finally {
                running.remove(streamId, callEpoch);
                inFlight.release();
            }
        }).start();
    }

    private void reply(int streamId, long callEpoch, Response response) {
        byte[] data = response.toByteArray();
        if (data.length > FrameHeader.MAX_DATA_LENGTH) {
            data = Dispatcher.error(Code.RESOURCE_EXHAUSTED, "response of " + data.length
                    + " bytes exceeds the maximum message size of " + FrameHeader.MAX_DATA_LENGTH).toByteArray();
        }
        writeLock.lock();
        try {
            if (epoch != callEpoch) {
                return;
            }
            writer.write(Frame.of(streamId, FrameHeader.TYPE_RESPONSE, 0, data));
        } catch (IOException e) {
            // The reader sees the same failure and ends the session.
            LOG.log(Level.DEBUG, name + ": reply on stream " + Integer.toUnsignedString(streamId) + ": " + e);
        } finally {
            writeLock.unlock();
        }
    }

    private static long deadline(long timeoutNanos) {
        if (timeoutNanos <= 0) {
            return 0;
        }
        long deadline = System.nanoTime() + Math.min(timeoutNanos, Duration.ofDays(365).toNanos());
        return deadline == 0 ? 1 : deadline;
    }

    private static Map<String, List<String>> metadata(Request request) {
        Map<String, List<String>> metadata = new LinkedHashMap<>();
        for (KeyValue kv : request.getMetadataList()) {
            metadata.computeIfAbsent(kv.getKey(), k -> new ArrayList<>()).add(kv.getValue());
        }
        metadata.replaceAll((k, v) -> List.copyOf(v));
        return metadata;
    }
}
