package io.jrunc.vm;

import com.google.protobuf.ByteString;
import io.jrunc.agent.api.AgentClient;
import io.jrunc.agent.api.AgentMethods;
import io.jrunc.agent.api.pb.v1.CloseStdinRequest;
import io.jrunc.agent.api.pb.v1.OutputStream;
import io.jrunc.agent.api.pb.v1.ProcessRef;
import io.jrunc.agent.api.pb.v1.ReadOutputRequest;
import io.jrunc.agent.api.pb.v1.ReadOutputResponse;
import io.jrunc.agent.api.pb.v1.WriteStdinRequest;
import io.jrunc.ttrpc.Code;
import io.jrunc.ttrpc.RpcException;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;

/**
 * A process's standard streams in a pod, as java.io streams over the agent's calls: output by
 * long-polling ReadOutput (the agent buffers between reads; a full buffer stops the process's writes,
 * as a pipe does), input by WriteStdin in calls of at most 1 MiB, end of input by CloseStdin. The
 * reader of a stream must be its only reader: the agent hands each byte out once.
 */
public final class ProcessStreams {
    /** The most one WriteStdin carries (the agent's limit; a ttRPC frame holds 4 MiB). */
    static final int MAX_WRITE = 1 << 20;
    /** A ReadOutput waits until output comes: no deadline but the process's life. */
    private static final Duration POLL = Duration.ofDays(3650);
    private static final Duration CALL = Duration.ofSeconds(60);

    private final AgentClient agent;
    private final ProcessRef process;

    ProcessStreams(AgentClient agent, ProcessRef process) {
        this.agent = agent;
        this.process = process;
    }

    public InputStream stdout() {
        return new Output(OutputStream.OUTPUT_STREAM_STDOUT);
    }

    /** At end of file at once for a process with a terminal (all its output is on stdout). */
    public InputStream stderr() {
        return new Output(OutputStream.OUTPUT_STREAM_STDERR);
    }

    /** Input to the process; {@code close()} closes its stdin (it reads end of file). */
    public java.io.OutputStream stdin() {
        return new Input();
    }

    /** Closes the process's stdin; one that has already ended or closed it is fine. */
    public void closeStdin() throws IOException {
        try {
            agent.call(AgentMethods.Processes.CLOSE_STDIN, CloseStdinRequest.newBuilder().setProcess(process).build(), CALL);
        } catch (RpcException e) {
            if (e.code() != Code.NOT_FOUND && e.code() != Code.FAILED_PRECONDITION) {
                throw new IOException("closing the stdin of " + describe() + ": " + e.getMessage(), e);
            }
        }
    }

    private String describe() {
        return process.getContainerId() + (process.getExecId().isEmpty() ? "" : " exec " + process.getExecId());
    }

    private final class Output extends InputStream {
        private final OutputStream stream;
        private byte[] buffer = new byte[0];
        private int position;
        private boolean eof;

        Output(OutputStream stream) {
            this.stream = stream;
        }

        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            if (len == 0) {
                return 0;
            }
            while (position == buffer.length) {
                if (eof) {
                    return -1;
                }
                ReadOutputResponse r;
                try {
                    r = agent.call(AgentMethods.Processes.READ_OUTPUT, ReadOutputRequest.newBuilder().setProcess(process)
                            .setStream(stream).setMaxBytes(MAX_WRITE).build(), POLL);
                } catch (RpcException e) {
                    if (e.code() == Code.NOT_FOUND) {
                        return -1; // the process is gone, and its output with it
                    }
                    throw new IOException("reading the output of " + describe() + ": " + e.getMessage(), e);
                }
                buffer = r.getData().toByteArray();
                position = 0;
                eof = r.getEof();
            }
            int n = Math.min(len, buffer.length - position);
            System.arraycopy(buffer, position, b, off, n);
            position += n;
            return n;
        }
    }

    private final class Input extends java.io.OutputStream {
        private boolean closed;

        @Override
        public void write(int b) throws IOException {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            if (closed) {
                throw new IOException("the stdin of " + describe() + " is closed");
            }
            while (len > 0) {
                int n = Math.min(len, MAX_WRITE);
                int written;
                try {
                    written = agent.call(AgentMethods.Processes.WRITE_STDIN, WriteStdinRequest.newBuilder().setProcess(process)
                            .setData(ByteString.copyFrom(b, off, n)).build(), POLL).getWritten();
                } catch (RpcException e) {
                    throw new IOException("writing to the stdin of " + describe() + ": " + e.getMessage(), e);
                }
                if (written <= 0) {
                    throw new IOException("writing to the stdin of " + describe() + ": nothing taken");
                }
                off += written;
                len -= written;
            }
        }

        @Override
        public void close() throws IOException {
            if (!closed) {
                closed = true;
                closeStdin();
            }
        }
    }
}
