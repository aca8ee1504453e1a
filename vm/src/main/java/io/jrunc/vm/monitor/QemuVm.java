package io.jrunc.vm.monitor;

import io.jrunc.ttrpc.ByteStream;
import io.jrunc.vm.qemu.QmpClient;
import io.jrunc.vm.qemu.SwapDisk;
import io.jrunc.vm.qemu.Virtiofsd;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A pod's qemu: started by this monitor ({@link #launch}) or found running after a monitor died
 * ({@link #attach}); controlled through QMP; the agent reached through the chardev socket.
 */
public final class QemuVm implements PodVm {
    private static final Duration QMP_TIMEOUT = Duration.ofSeconds(30);

    private final ProcessHandle qemu;
    private final Process child;
    private final Path podDir;
    private final QmpClient qmp;

    private QemuVm(ProcessHandle qemu, Process child, Path podDir, QmpClient qmp) {
        this.qemu = qemu;
        this.child = child;
        this.podDir = podDir;
        this.qmp = qmp;
    }

    /**
     * Starts qemu with this command line, its stdout and stderr appended to {@code log}. If it does not
     * come up (no such binary, arguments it refuses, an exit at once, a QMP socket that never answers),
     * nothing of this boot is left: qemu is killed and waited for, and its sockets and the swap area
     * the monitor made for it are removed ({@link #removeBootFiles}).
     */
    public static QemuVm launch(List<String> command, Path podDir, Path log) throws IOException {
        Files.deleteIfExists(podDir.resolve("qmp.sock"));
        Files.deleteIfExists(podDir.resolve("agent.sock"));
        Process p = null;
        try {
            p = new ProcessBuilder(command)
                    .redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()))
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                    .redirectErrorStream(true)
                    .start();
            return new QemuVm(p.toHandle(), p, podDir, connectQmp(p.toHandle(), podDir));
        } catch (IOException | RuntimeException e) {
            if (p != null) {
                p.destroyForcibly();
                try {
                    p.waitFor(10, TimeUnit.SECONDS);
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                }
            }
            removeBootFiles(podDir);
            throw e;
        }
    }

    /**
     * What a boot makes in the pod's directory and nothing outlives: qemu's QMP and agent sockets, the
     * swap area (made afresh before every boot), and the shared directories' virtiofsd processes and
     * sockets (each exits when qemu does; one whose hot-plug never came still waits for it).
     */
    public static void removeBootFiles(Path podDir) throws IOException {
        Virtiofsd.stopAll(podDir);
        Files.deleteIfExists(podDir.resolve("qmp.sock"));
        Files.deleteIfExists(podDir.resolve("agent.sock"));
        Files.deleteIfExists(SwapDisk.file(podDir));
    }

    /** Takes over a running qemu (the previous monitor died): QMP takes one client, and that one is gone. */
    public static QemuVm attach(ProcessHandle qemu, Path podDir) throws IOException {
        return new QemuVm(qemu, null, podDir, connectQmp(qemu, podDir));
    }

    private static QmpClient connectQmp(ProcessHandle qemu, Path podDir) throws IOException {
        Path socket = podDir.resolve("qmp.sock");
        long deadline = System.nanoTime() + QMP_TIMEOUT.toNanos();
        IOException last = null;
        while (System.nanoTime() < deadline && qemu.isAlive()) {
            if (Files.exists(socket)) {
                try {
                    return QmpClient.connect(socket, QMP_TIMEOUT);
                } catch (IOException e) {
                    last = e;
                }
            }
            sleep(50);
        }
        throw new IOException("cannot reach qemu's QMP socket " + socket
                + (qemu.isAlive() ? "" : ": qemu exited (see monitor.log)") + (last == null ? "" : ": " + last.getMessage()));
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public ByteStream connectAgent() throws IOException {
        SocketChannel channel = SocketChannel.open(StandardProtocolFamily.UNIX);
        channel.connect(UnixDomainSocketAddress.of(podDir.resolve("agent.sock")));
        return ByteStream.of(channel);
    }

    @Override
    public long pid() {
        return qemu.pid();
    }

    @Override
    public String status() throws IOException {
        return qmp.status();
    }

    @Override
    public void attachDisk(String serial, Path image) throws IOException {
        qmp.attachDisk(serial, image);
    }

    @Override
    public void attachWritableDisk(String serial, Path image) throws IOException {
        qmp.attachWritableDisk(serial, image);
    }

    @Override
    public void detachDisks(List<String> serials) throws IOException {
        qmp.detachDisks(serials, Duration.ofSeconds(20));
    }

    @Override
    public void attachShare(String tag, Path directory) throws IOException {
        Virtiofsd.start(podDir, tag, directory, podDir.resolve("monitor.log"));
        try {
            qmp.attachShare(tag, Virtiofsd.socket(podDir, tag));
        } catch (IOException e) {
            try {
                Virtiofsd.stop(podDir, tag);
            } catch (IOException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
    }

    @Override
    public void detachShare(String tag) throws IOException {
        try {
            qmp.detachShare(tag, Duration.ofSeconds(20));
        } finally {
            Virtiofsd.stop(podDir, tag);
        }
    }

    @Override
    public Integer awaitExit(Duration timeout) throws InterruptedException {
        if (child != null) {
            return child.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS) ? child.exitValue() : null;
        }
        try {
            qemu.onExit().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            return -1;
        } catch (java.util.concurrent.TimeoutException e) {
            return null;
        } catch (java.util.concurrent.ExecutionException e) {
            return -1;
        }
    }

    /** Stops the VM and saves its devices' state (QmpClient#saveState): a template's. */
    void saveState(Path file, Duration wait) throws IOException {
        qmp.saveState(file, wait);
    }

    /** Loads a template's state into this qemu, started with {@code -incoming defer}, and runs the VM on. */
    void loadState(Path file, Duration wait) throws IOException {
        qmp.loadState(file, wait);
    }

    @Override
    public void quit() throws IOException {
        qmp.quit();
    }

    @Override
    public void kill() {
        (child != null ? child.toHandle() : qemu).destroyForcibly();
    }

    @Override
    public boolean isAlive() {
        return qemu.isAlive();
    }

    @Override
    public void close() {
        qmp.close();
    }
}
