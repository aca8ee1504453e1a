package io.jrunc.vm.monitor;

import io.jrunc.ttrpc.ByteStream;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A PodVm without qemu (no VM image on the build host): the agent channel is the stand-in guest's
 * chardev socket, disks are recorded instead of hot-plugged (QmpClientTest drives real QMP), and
 * "qemu" exits when quit (or, {@link #deafToQuit}, only when killed). {@link #dieMidFrame} cuts the monitor's agent connection after half a frame,
 * as a monitor killed while writing would.
 */
final class StandInVm implements PodVm {
    final List<String> attached = new CopyOnWriteArrayList<>();
    final List<String> detached = new CopyOnWriteArrayList<>();
    private final Path chardev;
    private final CountDownLatch exited = new CountDownLatch(1);
    private volatile SocketChannel last;
    /** A qemu that ignores QMP quit (hung, or stopped): only {@link #kill} ends it. */
    volatile boolean deafToQuit;
    volatile int exitCode;
    final List<String> signals = new CopyOnWriteArrayList<>();

    StandInVm(Path chardev) {
        this.chardev = chardev;
    }

    @Override
    public ByteStream connectAgent() throws IOException {
        SocketChannel c = SocketChannel.open(StandardProtocolFamily.UNIX);
        c.connect(UnixDomainSocketAddress.of(chardev));
        last = c;
        return ByteStream.of(c);
    }

    /** Writes the first 6 bytes of a ttRPC header (a 100-byte request) and drops the connection. */
    void dieMidFrame() throws IOException {
        SocketChannel c = last;
        c.write(ByteBuffer.wrap(new byte[] {0, 0, 0, 100, 0, 0}));
        c.close();
    }

    @Override
    public long pid() {
        return ProcessHandle.current().pid();
    }

    @Override
    public String status() {
        return exited.getCount() == 0 ? "shutdown" : "running";
    }

    @Override
    public void attachDisk(String serial, Path image) {
        attached.add(serial + "=" + image);
        plugOrder.add("disk " + serial);
    }

    @Override
    public void attachWritableDisk(String serial, Path image) {
        attached.add(serial + "=rw:" + image);
    }

    @Override
    public void detachDisks(List<String> serials) {
        detached.addAll(serials);
    }

    /** Tags of shares hot-plugged and unplugged, in order (no virtiofsd runs: the guest is a stand-in). */
    final List<String> sharesAttached = new java.util.concurrent.CopyOnWriteArrayList<>();
    final List<String> sharesDetached = new java.util.concurrent.CopyOnWriteArrayList<>();
    /** Every hot-plug, disk or share, in order. */
    final List<String> plugOrder = new java.util.concurrent.CopyOnWriteArrayList<>();

    @Override
    public void attachShare(String tag, Path directory) {
        sharesAttached.add(tag);
        plugOrder.add("share " + tag);
    }

    @Override
    public void detachShare(String tag) {
        sharesDetached.add(tag);
    }

    @Override
    public Integer awaitExit(Duration timeout) throws InterruptedException {
        return exited.await(timeout.toMillis(), TimeUnit.MILLISECONDS) ? exitCode : null;
    }

    @Override
    public void quit() {
        signals.add("quit");
        if (!deafToQuit) {
            exited.countDown();
        }
    }

    @Override
    public void kill() {
        signals.add("kill");
        exitCode = 128 + 9;
        exited.countDown();
    }

    @Override
    public boolean isAlive() {
        return exited.getCount() > 0;
    }

    @Override
    public void close() {
    }
}
