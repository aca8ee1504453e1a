package io.jrunc.vm.copy;

import com.google.protobuf.ByteString;
import io.jrunc.agent.api.AgentClient;
import io.jrunc.agent.api.AgentMethods;
import io.jrunc.agent.api.pb.v1.CopyCancelRequest;
import io.jrunc.agent.api.pb.v1.CopyInRequest;
import io.jrunc.agent.api.pb.v1.CopyInWriteRequest;
import io.jrunc.agent.api.pb.v1.CopyOutReadRequest;
import io.jrunc.agent.api.pb.v1.CopyOutReadResponse;
import io.jrunc.agent.api.pb.v1.CopyOutRequest;
import io.jrunc.agent.api.pb.v1.CopyOutResponse;
import io.jrunc.agent.api.pb.v1.FileKind;
import io.jrunc.agent.api.pb.v1.FileStatRequest;
import io.jrunc.agent.api.tar.TarEntry;
import io.jrunc.agent.api.tar.TarNames;
import io.jrunc.agent.api.tar.TarReader;
import io.jrunc.agent.api.tar.TarWriter;
import io.jrunc.ttrpc.Code;
import io.jrunc.ttrpc.RpcException;
import io.jrunc.vm.Containers;
import io.jrunc.vm.VmException;
import io.jrunc.vm.copy.CopyPaths.InContainer;
import io.jrunc.vm.copy.CopyPaths.Kind;
import io.jrunc.vm.copy.CopyPaths.Local;
import io.jrunc.vm.copy.CopyPaths.Side;
import io.jrunc.vm.copy.CopyPaths.Target;
import io.jrunc.vm.state.ContainerRecord;
import io.jrunc.vm.state.PodRecord;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * `jrunc-vm cp`: files and trees between the host and a container's root filesystem, with docker
 * cp's rules ({@link CopyPaths}). The guest reads and writes the container's root (the Files service,
 * docs/protocol.md) in a running pod, whatever state the container is in; the host side is
 * {@link HostTrees}. The tar stream moves in 1 MiB calls through the pod's monitor.
 */
public final class ContainerCopies {
    static final int CHUNK = 1 << 20;
    private static final Duration CALL = Duration.ofSeconds(60);

    private final Containers containers;

    public ContainerCopies(Containers containers) {
        this.containers = containers;
    }

    /**
     * Copies {@code source} to {@code destination}, one of them {@code CONTAINER:PATH}; the other may
     * be "-": a tar stream read from {@code stdin} and written into a directory of the container, or
     * the container's path written to {@code stdout} as a tar stream whose top is named as it is.
     */
    public void copy(String source, String destination, boolean followLink, InputStream stdin, OutputStream stdout)
            throws VmException {
        Side from = CopyPaths.side(source);
        Side to = CopyPaths.side(destination);
        if (from instanceof InContainer && to instanceof InContainer) {
            throw new VmException("cp: copying between containers is not supported");
        }
        if (source.equals("-") && to instanceof InContainer c) {
            streamIn(stdin, c.container(), CopyPaths.containerPath(c.path()));
            return;
        }
        if (destination.equals("-") && from instanceof InContainer c) {
            streamOut(c.container(), CopyPaths.containerPath(c.path()), followLink, stdout);
            return;
        }
        if (from instanceof Local && to instanceof Local) {
            throw new VmException("cp: one of SRC and DST must be CONTAINER:PATH (neither " + source + " nor "
                    + destination + " is)");
        }
        if (from instanceof Local l && to instanceof InContainer c) {
            copyIn(l.path(), c.container(), CopyPaths.containerPath(c.path()), followLink);
        } else if (from instanceof InContainer c && to instanceof Local l) {
            copyOut(c.container(), CopyPaths.containerPath(c.path()), l.path(), followLink);
        }
    }

    private AgentClient connect(String name) throws VmException {
        ContainerRecord c = containers.require(name);
        if ("creating".equals(c.lastState())) {
            throw new VmException("cp: container " + name + " is still being created");
        }
        PodRecord pod = containers.pods().require(c.pod());
        if (!containers.pods().running(pod)) {
            throw new VmException("cp: container " + name + "'s pod \"" + pod.name()
                    + "\" is not running: a container's root filesystem is reachable only in its running pod (pod start "
                    + pod.name() + ")");
        }
        return containers.pods().connectRunning(pod);
    }

    private void copyIn(String hostPath, String name, String containerPath, boolean follow) throws VmException {
        Path src = Path.of(hostPath);
        Map<String, Object> a;
        try {
            a = HostTrees.attributes(src, follow);
        } catch (NoSuchFileException e) {
            throw new VmException("cp: " + hostPath + ": no such file or directory");
        } catch (IOException e) {
            throw new VmException("cp: " + hostPath + ": " + e.getMessage(), e);
        }
        boolean directory = (Boolean) a.get("isDirectory");
        if (!directory && !(Boolean) a.get("isRegularFile") && !(Boolean) a.get("isSymbolicLink")) {
            throw new VmException("cp: " + hostPath + ": only files, directories and symbolic links are copied");
        }
        if (!directory && (hostPath.endsWith("/") || CopyPaths.contentsOnly(hostPath))) {
            throw new VmException("cp: " + hostPath + ": not a directory");
        }
        withAgent(name, containerPath, "cp: " + hostPath + ": ", agent -> {
            FileKind kind = agent.call(AgentMethods.Files.FILE_STAT, FileStatRequest.newBuilder().setContainerId(name)
                    .setPath(containerPath).build(), CALL).getKind();
            Kind there = switch (kind) {
                case FILE_KIND_ABSENT -> Kind.ABSENT;
                case FILE_KIND_DIRECTORY -> Kind.DIRECTORY;
                default -> Kind.FILE;
            };
            Target target = CopyPaths.target(hostPath, directory, containerPath, there);
            String session = agent.call(AgentMethods.Files.COPY_IN, CopyInRequest.newBuilder().setContainerId(name)
                    .setDirectory(target.directory()).setName(target.name()).build(), CALL).getSession();
            Upload upload = new Upload(agent, session);
            try {
                TarWriter w = new TarWriter(upload);
                HostTrees.archive(src, follow, w);
                w.finish();
                upload.last();
            } catch (IOException | UncheckedIOException | RpcException e) {
                upload.cancel();
                throw e;
            }
        });
    }

    private void copyOut(String name, String containerPath, String hostPath, boolean follow) throws VmException {
        Path dst = Path.of(hostPath);
        Kind there;
        if (Files.isDirectory(dst)) {
            there = Kind.DIRECTORY;
        } else if (Files.exists(dst, LinkOption.NOFOLLOW_LINKS)) {
            there = Kind.FILE;
        } else {
            there = Kind.ABSENT;
        }
        withAgent(name, containerPath, "cp: " + hostPath + ": ", agent -> {
            CopyOutResponse opened = agent.call(AgentMethods.Files.COPY_OUT, CopyOutRequest.newBuilder()
                    .setContainerId(name).setPath(containerPath).setFollowLink(follow).build(), CALL);
            Download download = new Download(agent, opened.getSession());
            try {
                Target target = CopyPaths.target(containerPath,
                        opened.getKind() == FileKind.FILE_KIND_DIRECTORY, hostPath, there);
                Path directory = Path.of(target.directory());
                if (!Files.isDirectory(directory)) {
                    throw new VmException("cp: " + target.directory() + ": no such directory");
                }
                HostTrees.extract(directory, target.name(), new TarReader(download));
                download.drain();
            } catch (VmException | IOException | UncheckedIOException e) {
                download.cancel();
                throw e;
            }
        });
    }

    /** `cp - C:DIR`: the caller's tar stream, as it is, extracted into the directory DIR. */
    private void streamIn(InputStream stdin, String name, String directory) throws VmException {
        withAgent(name, directory, "cp: reading stdin: ", agent -> {
            FileKind kind = agent.call(AgentMethods.Files.FILE_STAT, FileStatRequest.newBuilder().setContainerId(name)
                    .setPath(directory).build(), CALL).getKind();
            if (kind != FileKind.FILE_KIND_DIRECTORY) {
                throw new VmException("cp: " + name + ":" + directory + " must be a directory to copy a tar stream from stdin into");
            }
            String session = agent.call(AgentMethods.Files.COPY_IN, CopyInRequest.newBuilder().setContainerId(name)
                    .setDirectory(directory).setName("").build(), CALL).getSession();
            Upload upload = new Upload(agent, session);
            try {
                stdin.transferTo(upload);
                upload.last();
            } catch (IOException | UncheckedIOException | RpcException e) {
                upload.cancel();
                throw e;
            }
        });
    }

    /** `cp C:PATH -`: the path as a tar stream on stdout, its top named as PATH's last component. */
    private void streamOut(String name, String path, boolean follow, OutputStream stdout) throws VmException {
        String top = CopyPaths.lastComponent(path);
        String prefix = top.isEmpty() || top.equals(".") || top.equals("..") ? "." : top;
        withAgent(name, path, "cp: writing stdout: ", agent -> {
            CopyOutResponse opened = agent.call(AgentMethods.Files.COPY_OUT, CopyOutRequest.newBuilder()
                    .setContainerId(name).setPath(path).setFollowLink(follow).build(), CALL);
            Download download = new Download(agent, opened.getSession());
            try {
                TarReader in = new TarReader(download);
                TarWriter out = new TarWriter(stdout);
                for (TarEntry e; (e = in.next()) != null; ) {
                    List<String> parts = TarNames.components(e.name());
                    String renamed = parts.isEmpty() ? prefix : prefix + "/" + String.join("/", parts);
                    TarEntry r = new TarEntry(renamed, e.kind(), e.mode(), e.uid(), e.gid(), e.mtimeSeconds(),
                            e.mtimeNanos(), e.size(), e.linkTarget());
                    if (r.kind() == TarEntry.Kind.FILE) {
                        out.write(r, in.content());
                    } else if (r.kind() != TarEntry.Kind.OTHER) {
                        out.write(r);
                    }
                }
                download.drain();
                out.finish();
            } catch (IOException | UncheckedIOException e) {
                download.cancel();
                throw e;
            } catch (IllegalArgumentException e) {
                // a member name the stream cannot carry
                download.cancel();
                throw new IOException(e.getMessage(), e);
            }
        });
    }

    /** What a copy does with the pod's agent; stream failures arrive as IOException. */
    private interface AgentWork {
        void run(AgentClient agent) throws IOException, RpcException, VmException;
    }

    /**
     * Runs {@code work} against the container's pod, turning the agent's errors into messages that
     * name {@code name:path}, and a local stream's into {@code ioContext} and its message.
     */
    private void withAgent(String name, String path, String ioContext, AgentWork work) throws VmException {
        try (AgentClient agent = connect(name)) {
            work.run(agent);
        } catch (RpcException e) {
            throw agentError(name, path, e);
        } catch (RpcCarrier e) {
            throw agentError(name, path, e.rpc);
        } catch (UncheckedIOException e) {
            throw e.getCause() instanceof RpcCarrier r ? agentError(name, path, r.rpc)
                    : new VmException("cp: " + e.getCause().getMessage(), e);
        } catch (IOException e) {
            throw new VmException(ioContext + e.getMessage(), e);
        }
    }

    private static VmException agentError(String name, String path, RpcException e) {
        if (e.code() == Code.NOT_FOUND && e.getMessage().startsWith("no container")) {
            return new VmException("cp: container " + name + " is not in its pod's VM", e);
        }
        return new VmException("cp: " + name + ":" + path + ": " + e.getMessage(), e);
    }

    /** An RpcException carried through the stream interfaces, which throw only IOException. */
    private static final class RpcCarrier extends IOException {
        final RpcException rpc;

        RpcCarrier(RpcException rpc) {
            super(rpc.getMessage(), rpc);
            this.rpc = rpc;
        }
    }

    /** The stream into the container: buffered to CHUNK, each chunk one CopyInWrite. */
    private static final class Upload extends OutputStream {
        private final AgentClient agent;
        private final String session;
        private final byte[] buffer = new byte[CHUNK];
        private int used;

        Upload(AgentClient agent, String session) {
            this.agent = agent;
            this.session = session;
        }

        @Override
        public void write(int b) throws IOException {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            while (len > 0) {
                int n = Math.min(len, buffer.length - used);
                System.arraycopy(b, off, buffer, used, n);
                used += n;
                off += n;
                len -= n;
                if (used == buffer.length) {
                    send(false);
                }
            }
        }

        private void send(boolean last) throws IOException {
            try {
                agent.call(AgentMethods.Files.COPY_IN_WRITE, CopyInWriteRequest.newBuilder().setSession(session)
                        .setData(ByteString.copyFrom(buffer, 0, used)).setLast(last).build(), CALL);
            } catch (RpcException e) {
                throw new RpcCarrier(e);
            }
            used = 0;
        }

        void last() throws RpcException {
            try {
                send(true);
            } catch (RpcCarrier c) {
                throw c.rpc;
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        void cancel() {
            Download.cancel(agent, session);
        }
    }

    /** The stream out of the container: CopyOutRead calls of CHUNK until eof. */
    private static final class Download extends InputStream {
        private final AgentClient agent;
        private final String session;
        private ByteString chunk = ByteString.EMPTY;
        private int at;
        private boolean eof;

        Download(AgentClient agent, String session) {
            this.agent = agent;
            this.session = session;
        }

        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            while (at == chunk.size()) {
                if (eof) {
                    return -1;
                }
                try {
                    CopyOutReadResponse r = agent.call(AgentMethods.Files.COPY_OUT_READ,
                            CopyOutReadRequest.newBuilder().setSession(session).setMaxBytes(CHUNK).build(), CALL);
                    chunk = r.getData();
                    at = 0;
                    eof = r.getEof();
                } catch (RpcException e) {
                    eof = true;
                    throw new RpcCarrier(e);
                }
            }
            int n = Math.min(len, chunk.size() - at);
            chunk.copyTo(b, at, off, n);
            at += n;
            return n;
        }

        /** Reads to the end, so the agent reports a failure that came after the stream's last member. */
        void drain() throws IOException {
            transferTo(OutputStream.nullOutputStream());
        }

        void cancel() {
            if (!eof) {
                cancel(agent, session);
            }
        }

        static void cancel(AgentClient agent, String session) {
            try {
                agent.call(AgentMethods.Files.COPY_CANCEL, CopyCancelRequest.newBuilder().setSession(session).build(),
                        Duration.ofSeconds(10));
            } catch (RpcException | RuntimeException ignored) {
                // the session ends by itself after a minute without calls
            }
        }
    }
}
