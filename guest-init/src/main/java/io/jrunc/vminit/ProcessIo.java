package io.jrunc.vminit;

import io.jrunc.bindings.ErrnoException;
import io.jrunc.bindings.FileDescriptors;
import io.jrunc.runtime.init.SpawnRequest;

/**
 * A process's standard streams as the agent holds them: three pipes whose far ends become the
 * process's 0, 1 and 2 (handed to the runtime library as explicit {@link SpawnRequest.Stdio}), and a
 * pump thread per output stream filling an {@link OutputBuffer} that ReadOutput drains.
 */
final class ProcessIo {
    private final int stdinWrite;
    private final int[] childEnds;
    final OutputBuffer stdout = new OutputBuffer();
    final OutputBuffer stderr = new OutputBuffer();
    private boolean stdinClosed;

    private ProcessIo(int stdinWrite, int[] childEnds) {
        this.stdinWrite = stdinWrite;
        this.childEnds = childEnds;
    }

    /**
     * A process with a terminal: its input and output both go through the pty's master, which the
     * runtime library sent over the console socket; stderr is at end of file at once.
     */
    static ProcessIo terminal(String name, int master) {
        ProcessIo io = new ProcessIo(master, new int[0]);
        io.master = master;
        int reader = FileDescriptors.dup(master);
        pump(name + " terminal", reader, io.stdout);
        io.stderr.end();
        return io;
    }

    private int master = -1;

    /** The pty master, or -1 for pipes. */
    int master() {
        return master;
    }

    static ProcessIo pipes(String name) {
        int[] in = FileDescriptors.pipe(FileDescriptors.O_CLOEXEC);
        int[] out = FileDescriptors.pipe(FileDescriptors.O_CLOEXEC);
        int[] err = FileDescriptors.pipe(FileDescriptors.O_CLOEXEC);
        ProcessIo io = new ProcessIo(in[1], new int[] {in[0], out[1], err[1]});
        pump(name + " stdout", out[0], io.stdout);
        pump(name + " stderr", err[0], io.stderr);
        return io;
    }

    /** The descriptors the process gets as 0, 1 and 2. */
    SpawnRequest.Stdio childStdio() {
        return new SpawnRequest.Stdio(childEnds[0], childEnds[1], childEnds[2]);
    }

    /** Once the process exists (or failed to): the agent keeps only its own ends, so EOF can come. */
    void closeChildEnds() {
        for (int i = 0; i < childEnds.length; i++) {
            FileDescriptors.closeQuietly(childEnds[i]);
            childEnds[i] = -1;
        }
    }

    synchronized int writeStdin(byte[] data) {
        if (stdinClosed) {
            throw new IllegalStateException("stdin is closed");
        }
        int off = 0;
        while (off < data.length) {
            byte[] rest = off == 0 ? data : java.util.Arrays.copyOfRange(data, off, data.length);
            off += FileDescriptors.write(stdinWrite, rest);
        }
        return off;
    }

    /**
     * The program reads end of file: the pipe's write end closed, or, on a terminal (whose master
     * stays open for the output), the EOF character at the start of a line (canonical mode).
     */
    synchronized void closeStdin() {
        if (stdinClosed) {
            return;
        }
        stdinClosed = true;
        if (master >= 0) {
            try {
                FileDescriptors.write(master, new byte[] {4});
            } catch (ErrnoException e) {
                // the terminal is gone: nothing reads it any more
            }
        } else {
            FileDescriptors.closeQuietly(stdinWrite);
        }
    }

    void close() {
        closeChildEnds();
        closeStdin();
        if (master >= 0) {
            FileDescriptors.closeQuietly(master);
        }
    }

    private static void pump(String name, int fd, OutputBuffer into) {
        Thread.ofPlatform().name(name).daemon(true).start(() -> {
            byte[] buf = new byte[64 * 1024];
            try {
                while (true) {
                    int n = FileDescriptors.read(fd, buf, buf.length);
                    if (n <= 0) {
                        break;
                    }
                    into.append(buf, n);
                }
            } catch (ErrnoException | InterruptedException e) {
                // the stream ends here either way
            } finally {
                FileDescriptors.closeQuietly(fd);
                into.end();
            }
        });
    }
}
