package io.jrunc.vm.monitor;

import io.jrunc.ttrpc.ByteStream;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * What the monitor needs of the VM it owns: the agent's channel and qemu's controls. {@link QemuVm} is
 * the real one; the monitor's tests use a stand-in where no VM can boot (no VM image on the build host).
 */
public interface PodVm extends AutoCloseable {
    /** A new connection to the agent's port (the chardev's Unix socket). */
    ByteStream connectAgent() throws IOException;

    long pid();

    /** QMP query-status. */
    String status() throws IOException;

    /** Hot-plugs the image read-only as a SCSI disk with this serial (QmpClient.attachDisk). */
    void attachDisk(String serial, Path image) throws IOException;

    /** Hot-plugs the image read-write (a container's writable layer), discards punching holes in it. */
    void attachWritableDisk(String serial, Path image) throws IOException;

    /** Unplugs the disks with these serials, together (QmpClient.detachDisks). */
    void detachDisks(List<String> serials) throws IOException;

    /** Starts the virtiofsd of a shared directory and hot-plugs its vhost-user-fs device, named {@code tag}. */
    void attachShare(String tag, Path directory) throws IOException;

    /** Unplugs the share's device and ends its virtiofsd (one never attached: only the latter). */
    void detachShare(String tag) throws IOException;

    /** Waits for qemu to exit; its exit code, -1 when unknown (not our child), null on timeout. */
    Integer awaitExit(Duration timeout) throws InterruptedException;

    /** QMP quit: ends qemu at once. */
    void quit() throws IOException;

    /** SIGKILL to qemu, for one that does not end when asked (hung, stopped, QMP silent). */
    void kill();

    boolean isAlive();

    @Override
    void close();
}
