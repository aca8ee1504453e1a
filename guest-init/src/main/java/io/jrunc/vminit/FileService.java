package io.jrunc.vminit;

import io.jrunc.agent.api.AgentMethods;
import io.jrunc.agent.api.pb.v1.CopyCancelResponse;
import io.jrunc.agent.api.pb.v1.CopyInRequest;
import io.jrunc.agent.api.pb.v1.CopyInResponse;
import io.jrunc.agent.api.pb.v1.CopyInWriteRequest;
import io.jrunc.agent.api.pb.v1.CopyInWriteResponse;
import io.jrunc.agent.api.pb.v1.CopyOutReadRequest;
import io.jrunc.agent.api.pb.v1.CopyOutReadResponse;
import io.jrunc.agent.api.pb.v1.CopyOutRequest;
import io.jrunc.agent.api.pb.v1.CopyOutResponse;
import io.jrunc.agent.api.pb.v1.FileKind;
import io.jrunc.agent.api.pb.v1.FileStatResponse;
import io.jrunc.agent.api.tar.TarReader;
import io.jrunc.agent.api.tar.TarWriter;
import io.jrunc.bindings.Errno;
import io.jrunc.bindings.ErrnoException;
import io.jrunc.bindings.FileDescriptors;
import io.jrunc.bindings.RootedFiles;
import io.jrunc.ttrpc.Code;
import io.jrunc.ttrpc.Dispatcher;
import io.jrunc.ttrpc.RpcException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.Pipe;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The Files service: copies into and out of a container's root filesystem (`jrunc-vm cp`). A copy is
 * a tar stream moved in chunks; its session runs the tree's reading or writing on a platform thread of
 * its own (its file calls block in native code) joined to the calls by a pipe, whose bounded buffer
 * paces the producer to the consumer. The root is the container's root filesystem as the agent
 * mounted it (bundle/rootfs), whatever state the container is in, until Remove.
 */
final class FileService {
    static final long IDLE_NANOS = TimeUnit.SECONDS.toNanos(60);
    private static final int MAX_CHUNK = 1 << 20;

    private final ContainerStore store;
    private final Map<String, Session> sessions = new ConcurrentHashMap<>();

    FileService(ContainerStore store) {
        this.store = store;
    }

    void register(Dispatcher d) {
        d.register(AgentMethods.Files.FILE_STAT, (c, r) -> fileStat(r.getContainerId(), r.getPath()));
        d.register(AgentMethods.Files.COPY_IN, (c, r) -> copyIn(r));
        d.register(AgentMethods.Files.COPY_IN_WRITE, (c, r) -> copyInWrite(r));
        d.register(AgentMethods.Files.COPY_OUT, (c, r) -> copyOut(r));
        d.register(AgentMethods.Files.COPY_OUT_READ, (c, r) -> copyOutRead(r));
        d.register(AgentMethods.Files.COPY_CANCEL, (c, r) -> {
            cancel(r.getSession());
            return CopyCancelResponse.getDefaultInstance();
        });
        Thread.ofVirtual().name("copy-sessions").start(this::expireIdle);
    }

    private void expireIdle() {
        while (true) {
            try {
                Thread.sleep(10_000);
            } catch (InterruptedException e) {
                return;
            }
            expireIdle(System.nanoTime());
        }
    }

    /** Cancels every session left without a call for a minute before {@code now} (its host went away). */
    void expireIdle(long now) {
        sessions.forEach((id, s) -> {
            if (now - s.lastUsed > IDLE_NANOS && sessions.remove(id, s)) {
                Console.log("copy session " + id + " idle for a minute: cancelled");
                s.cancel();
            }
        });
    }

    /** Ends a session: its pipe closed, its worker stops (and removes its temporary file). */
    void cancel(String id) {
        Session s = sessions.remove(id);
        if (s != null) {
            s.cancel();
        }
    }

    int sessionCount() {
        return sessions.size();
    }

    private int openRoot(String containerId) throws RpcException {
        ContainerRecord rec = store.get(containerId);
        try {
            return FileDescriptors.open(rec.bundle.resolve("rootfs").toString(),
                    FileDescriptors.O_PATH | FileDescriptors.O_DIRECTORY | FileDescriptors.O_CLOEXEC);
        } catch (ErrnoException e) {
            throw new RpcException(Code.FAILED_PRECONDITION, "container " + containerId + " has no root filesystem: "
                    + e.goStyle());
        }
    }

    static FileKind kind(RootedFiles.Stat st) {
        if (st == null) {
            return FileKind.FILE_KIND_ABSENT;
        }
        if (st.isRegular()) {
            return FileKind.FILE_KIND_REGULAR;
        }
        if (st.isDirectory()) {
            return FileKind.FILE_KIND_DIRECTORY;
        }
        return st.isSymlink() ? FileKind.FILE_KIND_SYMLINK : FileKind.FILE_KIND_OTHER;
    }

    FileStatResponse fileStat(String containerId, String path) throws RpcException {
        int root = openRoot(containerId);
        try {
            return FileStatResponse.newBuilder().setKind(kind(ContainerFiles.stat(root, path))).build();
        } catch (IOException e) {
            throw error(e);
        } finally {
            FileDescriptors.closeQuietly(root);
        }
    }

    static RpcException error(Throwable e) {
        return switch (e) {
            case RpcException r -> r;
            case ContainerFiles.CopyException c -> new RpcException(c.notFound ? Code.NOT_FOUND : Code.FAILED_PRECONDITION,
                    c.getMessage());
            case ErrnoException x -> new RpcException(x.is(Errno.ENOENT) ? Code.NOT_FOUND : Code.FAILED_PRECONDITION,
                    x.goStyle());
            case IOException io when io.getCause() instanceof ErrnoException x ->
                    new RpcException(x.is(Errno.ENOENT) ? Code.NOT_FOUND : Code.FAILED_PRECONDITION, io.getMessage());
            default -> new RpcException(Code.INTERNAL, String.valueOf(e.getMessage()), e);
        };
    }

    private static String validName(String name) throws RpcException {
        if (name.contains("/") || name.equals(".") || name.equals("..") || name.indexOf('\0') >= 0) {
            throw new RpcException(Code.INVALID_ARGUMENT, "name: one path component, not " + name);
        }
        return name;
    }

    private Session session(String id) throws RpcException {
        Session s = sessions.get(id);
        if (s == null) {
            throw new RpcException(Code.NOT_FOUND, "no copy session " + id + " (ended, cancelled or idle too long)");
        }
        s.lastUsed = System.nanoTime();
        return s;
    }

    CopyInResponse copyIn(CopyInRequest r) throws RpcException {
        String name = validName(r.getName());
        int root = openRoot(r.getContainerId());
        try {
            FileDescriptors.close(ContainerFiles.openTarget(root, r.getDirectory()));
            In s = new In(root, r.getDirectory(), name);
            String id = UUID.randomUUID().toString();
            sessions.put(id, s);
            return CopyInResponse.newBuilder().setSession(id).build();
        } catch (IOException | RuntimeException e) {
            FileDescriptors.closeQuietly(root);
            throw error(e);
        }
    }

    CopyInWriteResponse copyInWrite(CopyInWriteRequest r) throws RpcException, InterruptedException {
        if (!(session(r.getSession()) instanceof In s)) {
            throw new RpcException(Code.INVALID_ARGUMENT, "session " + r.getSession() + " copies out, not in");
        }
        if (r.getData().size() > MAX_CHUNK) {
            throw new RpcException(Code.INVALID_ARGUMENT, "data: at most 1 MiB per call");
        }
        try {
            s.write(r.getData().asReadOnlyByteBuffer());
            if (r.getLast()) {
                s.finish();
            }
        } catch (RpcException | InterruptedException e) {
            sessions.remove(r.getSession());
            s.cancel();
            throw e;
        }
        if (r.getLast()) {
            sessions.remove(r.getSession());
        }
        return CopyInWriteResponse.getDefaultInstance();
    }

    CopyOutResponse copyOut(CopyOutRequest r) throws RpcException {
        int root = openRoot(r.getContainerId());
        try {
            int fd = ContainerFiles.openSource(root, r.getPath(), r.getFollowLink());
            FileKind kind = kind(RootedFiles.stat(fd));
            Out s = new Out(fd);
            String id = UUID.randomUUID().toString();
            sessions.put(id, s);
            return CopyOutResponse.newBuilder().setSession(id).setKind(kind).build();
        } catch (IOException | RuntimeException e) {
            throw error(e);
        } finally {
            FileDescriptors.closeQuietly(root); // the source's descriptor holds what it needs
        }
    }

    CopyOutReadResponse copyOutRead(CopyOutReadRequest r) throws RpcException, InterruptedException {
        if (!(session(r.getSession()) instanceof Out s)) {
            throw new RpcException(Code.INVALID_ARGUMENT, "session " + r.getSession() + " copies in, not out");
        }
        int max = r.getMaxBytes() == 0 || r.getMaxBytes() > MAX_CHUNK ? MAX_CHUNK : r.getMaxBytes();
        try {
            byte[] data = s.read(max);
            boolean eof = data.length < max;
            if (eof) {
                s.finish();
                sessions.remove(r.getSession());
            }
            return CopyOutReadResponse.newBuilder().setData(com.google.protobuf.ByteString.copyFrom(data)).setEof(eof).build();
        } catch (RpcException | InterruptedException e) {
            sessions.remove(r.getSession());
            s.cancel();
            throw e;
        }
    }

    /** A copy under way: its worker thread, the pipe between the worker and the calls, its failure. */
    private abstract static sealed class Session permits In, Out {
        final Pipe pipe;
        private Thread worker;
        private volatile Throwable failure;
        volatile long lastUsed = System.nanoTime();

        Session() {
            try {
                pipe = Pipe.open();
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }

        interface Work {
            void run() throws Exception;
        }

        /** Starts the worker; {@code cleanup} runs after it whatever happened. */
        final void start(String name, Work work, Runnable cleanup) {
            worker = Thread.ofPlatform().daemon().name(name).start(() -> {
                try {
                    work.run();
                } catch (Throwable t) {
                    failure = t;
                } finally {
                    cleanup.run();
                }
            });
        }

        /** Waits for the worker and answers its failure. */
        void finish() throws RpcException, InterruptedException {
            worker.join();
            if (failure != null) {
                throw error(failure);
            }
        }

        /** The worker's failure when it has ended with one, else {@code e}. */
        RpcException failureOr(IOException e) throws InterruptedException {
            worker.join(5_000);
            return error(failure != null ? failure : e);
        }

        void cancel() {
            closeQuietly(pipe.sink());
            closeQuietly(pipe.source());
        }

        static void closeQuietly(java.nio.channels.Channel c) {
            try {
                c.close();
            } catch (IOException ignored) {
                // closing is all that is wanted
            }
        }
    }

    /** Into the container: the calls write the stream into the pipe, the worker extracts it. */
    private static final class In extends Session {
        In(int root, String directory, String name) {
            start("copy-in", () -> {
                try (InputStream in = Channels.newInputStream(pipe.source())) {
                    ContainerFiles.extract(root, directory, name, new TarReader(in));
                    in.transferTo(OutputStream.nullOutputStream()); // the end blocks and anything after them
                }
            }, () -> {
                closeQuietly(pipe.source());
                FileDescriptors.closeQuietly(root);
            });
        }

        void write(ByteBuffer data) throws RpcException, InterruptedException {
            try {
                while (data.hasRemaining()) {
                    pipe.sink().write(data);
                }
            } catch (IOException e) {
                throw failureOr(e); // the worker stopped reading: its failure says why
            }
        }

        @Override
        void finish() throws RpcException, InterruptedException {
            closeQuietly(pipe.sink());
            super.finish();
        }
    }

    /** Out of the container: the worker writes the tree's stream into the pipe, the calls read it. */
    private static final class Out extends Session {
        private final InputStream source = Channels.newInputStream(pipe.source());

        Out(int fd) {
            start("copy-out", () -> {
                try (OutputStream out = Channels.newOutputStream(pipe.sink())) {
                    TarWriter w = new TarWriter(out);
                    ContainerFiles.archive(fd, w);
                    w.finish();
                }
            }, () -> closeQuietly(pipe.sink())); // archive closes fd
        }

        byte[] read(int max) throws RpcException, InterruptedException {
            try {
                return source.readNBytes(max);
            } catch (IOException e) {
                throw failureOr(e);
            }
        }
    }
}
