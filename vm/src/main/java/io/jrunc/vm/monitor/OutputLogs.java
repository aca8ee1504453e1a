package io.jrunc.vm.monitor;

import io.jrunc.agent.api.AgentClient;
import io.jrunc.agent.api.AgentMethods;
import io.jrunc.agent.api.pb.v1.OutputStream;
import io.jrunc.agent.api.pb.v1.ProcessRef;
import io.jrunc.agent.api.pb.v1.ReadOutputRequest;
import io.jrunc.agent.api.pb.v1.ReadOutputResponse;
import io.jrunc.ttrpc.RpcException;
import io.jrunc.vm.VmException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Copies each container's output to its log files (stdout.log, stderr.log in the container's state
 * directory), long-polling the agent's ReadOutput on a virtual thread per stream until end of file.
 * The files outlive the pod's VM (kept across `pod stop`) and go with the container. After a monitor
 * restart the copying resumes for every running container; what the dead monitor had read but not
 * written is lost; a container that ended while no monitor ran still has its last output copied.
 */
final class OutputLogs {
    private static final System.Logger LOG = System.getLogger(OutputLogs.class.getName());
    private static final int CHUNK = 64 * 1024;

    private final Dirs containerDir;
    private final Set<String> copying = ConcurrentHashMap.newKeySet();

    /** A container's state directory, by its id (an id that breaks the name rule has none). */
    interface Dirs {
        Path of(String container) throws VmException;
    }

    OutputLogs(Dirs containerDir) {
        this.containerDir = containerDir;
    }

    static Path file(Path containerDir, OutputStream stream) {
        return containerDir.resolve(stream == OutputStream.OUTPUT_STREAM_STDERR ? "stderr.log" : "stdout.log");
    }

    void follow(AgentClient agent, String container) {
        for (OutputStream stream : new OutputStream[] {OutputStream.OUTPUT_STREAM_STDOUT, OutputStream.OUTPUT_STREAM_STDERR}) {
            String key = container + "/" + stream;
            if (copying.add(key)) {
                Thread.ofVirtual().name("log-" + key).start(() -> {
                    try {
                        copy(agent, container, stream);
                    } finally {
                        synchronized (copying) {
                            copying.remove(key);
                            copying.notifyAll();
                        }
                    }
                });
            }
        }
    }

    /**
     * Waits until no stream of the container is being copied (each reached the agent's end of file, or
     * its copy ended otherwise); false if some still is after {@code timeout}.
     */
    boolean awaitEnded(String container, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (copying) {
            while (copying.contains(container + "/" + OutputStream.OUTPUT_STREAM_STDOUT)
                    || copying.contains(container + "/" + OutputStream.OUTPUT_STREAM_STDERR)) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                copying.wait(Math.max(1, left / 1_000_000));
            }
            return true;
        }
    }

    private void copy(AgentClient agent, String container, OutputStream stream) {
        Path file;
        try {
            file = file(containerDir.of(container), stream);
        } catch (VmException e) {
            LOG.log(System.Logger.Level.WARNING, "no log for " + container + ": " + e.getMessage());
            return;
        }
        if (!Files.isDirectory(file.getParent())) {
            // removed (rm) while its copy began: a directory made again here would outlive the container
            return;
        }
        try (FileChannel out = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.APPEND)) {
            ReadOutputRequest request = ReadOutputRequest.newBuilder()
                    .setProcess(ProcessRef.newBuilder().setContainerId(container))
                    .setStream(stream).setMaxBytes(CHUNK).build();
            while (true) {
                ReadOutputResponse r = agent.call(AgentMethods.Processes.READ_OUTPUT, request);
                ByteBuffer data = r.getData().asReadOnlyByteBuffer();
                while (data.hasRemaining()) {
                    out.write(data);
                }
                if (r.getEof()) {
                    return;
                }
                if (r.getData().isEmpty()) {
                    Thread.sleep(10); // a long poll that timed out: ask again, but never spin
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RpcException e) {
            // the container went (NOT_FOUND) or the agent's connection did (UNAVAILABLE): a new monitor resumes
            LOG.log(System.Logger.Level.DEBUG, "log copy of " + container + " ended: " + e.getMessage());
        } catch (IOException e) {
            LOG.log(System.Logger.Level.WARNING, "cannot write " + file + ": " + e.getMessage());
        }
    }
}
