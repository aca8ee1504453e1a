package io.jrunc.shim.host;

import io.jrunc.bindings.Errno;
import io.jrunc.bindings.ErrnoException;
import io.jrunc.bindings.FileDescriptors;
import io.jrunc.runtime.init.SpawnRequest;
import io.jrunc.shim.TaskRequests;
import io.jrunc.ttrpc.Code;
import io.jrunc.ttrpc.RpcException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * A process's standard streams from containerd's fifos.
 *
 * <p>Output: the fifo itself is the process's stdout or stderr (opened by the shim read-write, which
 * never blocks whether or not containerd's reader is there yet, and handed to the process; the shim
 * keeps no copy), so output costs no copy and no thread, and containerd reads end of file when the
 * process and its children have closed it. A {@code file://} path is a file opened for appending.
 *
 * <p>Input: a pipe is the process's stdin and a thread copies the fifo into it, because only then can
 * the shim give the process end of file when containerd asks (CloseIO) while the fifo stays open; the
 * process also reads end of file once every writer of the fifo has closed it.
 *
 * <p>A terminal: the pty master the runtime library sent; a thread copies it to the stdout fifo and
 * another copies the stdin fifo into it. Input end of file is the EOF character.
 */
final class ProcessStdio implements AutoCloseable {
    private static final int CHUNK = 64 * 1024;
    private final int[] childEnds;
    private final int stdinFifo;
    private int stdinTarget;
    private int master = -1;
    private int terminalOut = -1;
    private volatile boolean stdinClosing;
    private volatile boolean closed;
    private final CompletableFuture<Void> outputDone = new CompletableFuture<>();

    private ProcessStdio(int[] childEnds, int stdinFifo, int stdinTarget) {
        this.childEnds = childEnds;
        this.stdinFifo = stdinFifo;
        this.stdinTarget = stdinTarget;
    }

    /** Streams for a process without a terminal. */
    static ProcessStdio pipes(String name, TaskRequests.Stdio stdio) throws RpcException {
        int in = -1;
        int out = -1;
        int err = -1;
        int[] pipe = null;
        try {
            out = openOutput("stdout", stdio.stdout());
            err = openOutput("stderr", stdio.stderr());
            if (!stdio.stdin().isEmpty()) {
                in = openFifo("stdin", stdio.stdin(), STDIN_FLAGS);
                pipe = FileDescriptors.pipe(FileDescriptors.O_CLOEXEC);
            }
        } catch (RpcException | RuntimeException e) {
            FileDescriptors.closeQuietly(in);
            FileDescriptors.closeQuietly(out);
            FileDescriptors.closeQuietly(err);
            throw e;
        }
        // a stream containerd does not want is /dev/null, never the shim's own descriptor
        int childIn = pipe == null ? devNull(FileDescriptors.O_RDONLY) : pipe[0];
        out = out < 0 ? devNull(FileDescriptors.O_WRONLY) : out;
        err = err < 0 ? devNull(FileDescriptors.O_WRONLY) : err;
        ProcessStdio io = new ProcessStdio(new int[] {childIn, out, err}, in, pipe == null ? -1 : pipe[1]);
        io.outputDone.complete(null);
        if (in >= 0) {
            io.copyIn(name);
        }
        return io;
    }

    /** Streams for a process with a terminal: only the fifos are opened now, the master comes later. */
    static ProcessStdio terminal(TaskRequests.Stdio stdio) throws RpcException {
        int in = -1;
        int out = -1;
        try {
            out = openOutput("stdout", stdio.stdout());
            if (!stdio.stdin().isEmpty()) {
                in = openFifo("stdin", stdio.stdin(), STDIN_FLAGS);
            }
        } catch (RpcException | RuntimeException e) {
            FileDescriptors.closeQuietly(out);
            throw e;
        }
        ProcessStdio io = new ProcessStdio(new int[0], in, -1);
        io.terminalOut = out;
        return io;
    }

    /** Takes the pty master and starts copying. */
    void attachTerminal(String name, int ptyMaster) {
        master = ptyMaster;
        stdinTarget = ptyMaster;
        Thread.ofPlatform().name(name + " terminal out").daemon(true).start(this::copyOut);
        if (stdinFifo >= 0) {
            copyIn(name);
        }
    }

    int master() {
        return master;
    }

    /** The descriptors the process gets as 0, 1 and 2; for a terminal the runtime library's pty. */
    SpawnRequest.Stdio childStdio() {
        if (childEnds.length == 0) {
            return SpawnRequest.Stdio.INHERIT;
        }
        return new SpawnRequest.Stdio(childEnds[0], childEnds[1], childEnds[2]);
    }

    private static int devNull(int flags) {
        return FileDescriptors.open("/dev/null", flags | FileDescriptors.O_CLOEXEC);
    }

    /** Once the process exists (or failed to): only the process holds its ends, so end of file can come. */
    void closeChildEnds() {
        for (int i = 0; i < childEnds.length; i++) {
            FileDescriptors.closeQuietly(childEnds[i]);
            childEnds[i] = -1;
        }
    }

    /**
     * The process is to read end of file once what containerd wrote so far has been copied: the copy
     * drains the fifo, then closes the pipe (or sends the EOF character on a terminal).
     */
    void closeStdin() {
        stdinClosing = true;
        if (stdinFifo < 0) {
            endInput();
        }
    }

    private synchronized void endInput() {
        if (stdinTarget < 0) {
            return;
        }
        if (master >= 0) {
            try {
                FileDescriptors.write(master, new byte[] {4});
            } catch (ErrnoException e) {
                // the terminal is gone
            }
        } else {
            FileDescriptors.closeQuietly(stdinTarget);
        }
        stdinTarget = -1;
    }

    private void copyIn(String name) {
        Thread.ofPlatform().name(name + " stdin").daemon(true).start(() -> {
            byte[] buffer = new byte[CHUNK];
            try {
                while (!closed) {
                    // no event while no writer has ever opened the fifo; POLLHUP once the last has closed it
                    short revents = FileDescriptors.poll(stdinFifo, FileDescriptors.POLLIN, 50);
                    if ((revents & (FileDescriptors.POLLIN | FileDescriptors.POLLHUP)) != 0) {
                        int n;
                        try {
                            n = FileDescriptors.read(stdinFifo, buffer, buffer.length);
                        } catch (ErrnoException e) {
                            if (e.is(Errno.EAGAIN)) {
                                continue;
                            }
                            throw e;
                        }
                        if (n == 0 || !writeAll(stdinTarget, buffer, n)) {
                            break; // every writer closed the fifo: the process's end of input
                        }
                    } else if (stdinClosing) {
                        break;
                    }
                }
            } catch (ErrnoException e) {
                // the stream ends here either way
            } finally {
                endInput();
                FileDescriptors.closeQuietly(stdinFifo);
            }
        });
    }

    private void copyOut() {
        byte[] buffer = new byte[CHUNK];
        try {
            while (true) {
                int n = FileDescriptors.read(master, buffer, buffer.length);
                if (n <= 0 || (terminalOut >= 0 && !writeAll(terminalOut, buffer, n))) {
                    break;
                }
            }
        } catch (ErrnoException e) {
            // EIO: every holder of the terminal's other side has gone
        } finally {
            FileDescriptors.closeQuietly(terminalOut);
            outputDone.complete(null);
        }
    }

    private static boolean writeAll(int fd, byte[] buffer, int length) {
        if (fd < 0) {
            return true;
        }
        int off = 0;
        while (off < length) {
            byte[] rest = off == 0 && length == buffer.length ? buffer : java.util.Arrays.copyOfRange(buffer, off, length);
            try {
                off += FileDescriptors.write(fd, rest);
            } catch (ErrnoException e) {
                return false;
            }
        }
        return true;
    }

    /** Waits up to {@code millis} for a terminal's output to be copied out (at once without one). */
    void awaitOutput(long millis) {
        try {
            outputDone.get(millis, TimeUnit.MILLISECONDS);
        } catch (Exception e) {
            // left to the copy
        }
    }

    @Override
    public void close() {
        closed = true;
        closeChildEnds();
        if (master >= 0) {
            endInput();
            FileDescriptors.closeQuietly(master);
        } else {
            endInput();
        }
        if (!outputDone.isDone()) {
            FileDescriptors.closeQuietly(terminalOut);
        }
    }

    private static int openOutput(String stream, String uri) throws RpcException {
        if (uri.isEmpty()) {
            return -1;
        }
        if (uri.startsWith("file://")) {
            String path = uri.substring("file://".length());
            if (!path.startsWith("/")) {
                throw new RpcException(Code.INVALID_ARGUMENT, stream + ": " + uri + " is not an absolute file path");
            }
            return open(stream, path, FileDescriptors.O_WRONLY | FileDescriptors.O_CREAT | FileDescriptors.O_APPEND);
        }
        // read-write: opening a fifo so never blocks, with or without containerd's reader
        return openFifo(stream, uri, FileDescriptors.O_RDWR);
    }

    /**
     * stdin's fifo is opened for reading alone (non-blocking, so the open never waits for a writer):
     * when containerd's side closes its end (ctr at the end of its input), the copy reads end of file
     * and gives it to the process, as containerd's runc shim does; ctr sends no CloseIO when its input
     * ended before its Exec returned. Held read-write, the shim would be a writer itself and no end
     * would ever come.
     */
    private static final int STDIN_FLAGS = FileDescriptors.O_RDONLY | FileDescriptors.O_NONBLOCK;

    private static int openFifo(String stream, String uri, int flags) throws RpcException {
        if (uri.startsWith("fifo://")) {
            uri = uri.substring("fifo://".length());
        }
        if (uri.contains("://")) {
            throw new RpcException(Code.UNIMPLEMENTED, stream + ": " + uri + ": only fifo and file paths are supported");
        }
        if (!uri.startsWith("/")) {
            throw new RpcException(Code.INVALID_ARGUMENT, stream + ": " + uri + " is not an absolute path");
        }
        if (!Files.exists(Path.of(uri))) {
            throw new RpcException(Code.INVALID_ARGUMENT, stream + ": " + uri + " does not exist");
        }
        return open(stream, uri, flags);
    }

    private static int open(String stream, String path, int flags) throws RpcException {
        try {
            return FileDescriptors.open(path, flags | FileDescriptors.O_CLOEXEC, 0644);
        } catch (ErrnoException e) {
            throw new RpcException(Code.INVALID_ARGUMENT, stream + ": " + e.getMessage());
        }
    }
}
