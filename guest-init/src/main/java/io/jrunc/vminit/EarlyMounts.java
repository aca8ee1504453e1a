package io.jrunc.vminit;

import io.jrunc.bindings.ErrnoException;
import io.jrunc.bindings.Errno;
import io.jrunc.bindings.Mounts;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The filesystems PID 1 mounts before anything else (the kernel gives it only the initramfs):
 * /proc, /sys, /dev, /dev/pts, /dev/shm, /run, /tmp and the cgroup v2 hierarchy. /dev/console and
 * PID 1's stdio already exist in the initramfs the kernel unpacked.
 */
final class EarlyMounts {
    private EarlyMounts() {}

    private record Fs(String source, String target, String type, long flags, String data) {}

    private static final long NOSUID = Mounts.MS_NOSUID, NODEV = Mounts.MS_NODEV, NOEXEC = Mounts.MS_NOEXEC;

    static final List<Fs> ORDER = List.of(
            new Fs("proc", "/proc", "proc", NOSUID | NODEV | NOEXEC, null),
            new Fs("sysfs", "/sys", "sysfs", NOSUID | NODEV | NOEXEC, null),
            new Fs("devtmpfs", "/dev", "devtmpfs", NOSUID, "mode=0755"),
            new Fs("devpts", "/dev/pts", "devpts", NOSUID | NOEXEC, "newinstance,ptmxmode=0666,mode=0620"),
            new Fs("shm", "/dev/shm", "tmpfs", NOSUID | NODEV, "mode=1777"),
            new Fs("tmpfs", "/run", "tmpfs", NOSUID | NODEV, "mode=0755"),
            new Fs("tmpfs", "/tmp", "tmpfs", NOSUID | NODEV, "mode=1777"),
            new Fs("cgroup2", "/sys/fs/cgroup", "cgroup2", NOSUID | NODEV | NOEXEC, "nsdelegate"));

    static void mountAll() throws IOException {
        for (Fs fs : ORDER) {
            Files.createDirectories(Path.of(fs.target()));
            try {
                Mounts.mount(fs.source(), fs.target(), fs.type(), fs.flags(), fs.data());
            } catch (ErrnoException e) {
                // devtmpfs may already be mounted by the kernel (CONFIG_DEVTMPFS_MOUNT applies to initramfs
                // only with a root device); anything else is fatal
                if (!(e.is(Errno.EBUSY) && fs.target().equals("/dev"))) {
                    throw e;
                }
            }
        }
        Path ptmx = Path.of("/dev/ptmx");
        if (!Files.exists(ptmx, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            Files.createSymbolicLink(ptmx, Path.of("pts/ptmx"));
        }
    }
}
