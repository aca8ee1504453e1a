package io.jrunc.vminit;

import io.jrunc.bindings.ErrnoException;
import io.jrunc.bindings.Errno;
import io.jrunc.bindings.FileTrees;
import io.jrunc.bindings.Mounts;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * A container's root filesystem: the disk whose serial the host gave (a SCSI disk on the pod's
 * virtio-scsi controller, or a virtio-blk disk, which keeps 20 characters; never sdX or vdX order),
 * mounted read-only; a root that needs an upper layer gets an overlay
 * over it. A writable root's upper layer is the container's layer disk (ext4, read-write, kept by the
 * host across restarts, so its writes outlive the VM); a read-only root given files the image may lack
 * mount points for gets a tmpfs (nothing is written there but those mount points).
 */
final class RootDisks {
    private RootDisks() {}

    private static final Path BLOCK = Path.of("/sys/block");
    private static final Path PCI_RESCAN = Path.of("/sys/bus/pci/rescan");
    private static final Path SCSI_HOSTS = Path.of("/sys/class/scsi_host");
    /** How long a disk may be late before the buses are rescanned (a hot-plug shows in 0.1-1 s under TCG). */
    static final long RESCAN_AFTER_MILLIS = 3_000;
    /** How often /sys/block is listed while a disk is awaited. */
    static final long POLL_MILLIS = 10;

    /** /dev/NAME of the disk with {@code serial}, waiting up to {@code waitMillis} for it to appear. */
    static Path find(String serial, long waitMillis) throws IOException, InterruptedException {
        return find(serial, waitMillis, BLOCK, new Rescan(serial), RESCAN_AFTER_MILLIS);
    }

    /** The rescan for one disk: a class, not a lambda, which the first Create would spin at run time. */
    private record Rescan(String serial) implements Runnable {
        @Override
        public void run() {
            rescan(serial);
        }
    }

    /**
     * The search, with sysfs' block directory and the rescan as parameters so a test can stand in for
     * them. A disk added to the SCSI bus is announced by a virtio-scsi event, a virtio-blk disk by ACPI;
     * if the guest missed or has not yet handled the event, the device stays unseen: after
     * {@code rescanAfterMillis} without it the buses are rescanned once, and the wait goes on.
     */
    static Path find(String serial, long waitMillis, Path block, Runnable rescan, long rescanAfterMillis)
            throws IOException, InterruptedException {
        long start = System.nanoTime();
        long deadline = start + waitMillis * 1_000_000;
        boolean rescanned = false;
        do {
            try (Stream<Path> disks = Files.list(block)) {
                for (Path disk : disks.toList()) {
                    if (serial.equals(serial(disk))) {
                        return Path.of("/dev", disk.getFileName().toString());
                    }
                }
            }
            if (!rescanned && System.nanoTime() - start >= rescanAfterMillis * 1_000_000) {
                rescanned = true;
                rescan.run();
            }
            Thread.sleep(POLL_MILLIS);
        } while (System.nanoTime() < deadline);
        return null;
    }

    /**
     * A disk's serial from its /sys/block directory: virtio-blk's {@code serial} file, or a SCSI disk's
     * unit serial number page ({@code device/vpd_pg80}: a 4-byte header whose bytes 2-3 are the
     * length, then the serial, padded with spaces); null for a disk with neither.
     */
    static String serial(Path disk) throws IOException {
        Path virtio = disk.resolve("serial");
        if (Files.exists(virtio)) {
            return Files.readString(virtio).trim();
        }
        Path page = disk.resolve("device/vpd_pg80");
        if (!Files.exists(page)) {
            return null;
        }
        byte[] b = new byte[256];
        int n;
        // one read: a second read of this sysfs file fails with EINVAL rather than reaching its end
        try (var in = Files.newInputStream(page)) {
            n = in.read(b);
        }
        if (n < 4) {
            return null;
        }
        int length = Math.min(n - 4, ((b[2] & 0xff) << 8) | (b[3] & 0xff));
        return new String(b, 4, length, java.nio.charset.StandardCharsets.US_ASCII).trim();
    }

    /**
     * Every SCSI host scanned ("- - -": all channels, targets and LUNs) and the PCI bus rescanned (which
     * probes every slot, as kata-agent does for a late device).
     */
    private static void rescan(String serial) {
        try (Stream<Path> hosts = Files.list(SCSI_HOSTS)) {
            for (Path host : hosts.toList()) {
                Files.writeString(host.resolve("scan"), "- - -");
            }
            Files.writeString(PCI_RESCAN, "1");
            Console.log("disk %s not seen after %d ms: SCSI hosts and PCI bus rescanned", serial, RESCAN_AFTER_MILLIS);
        } catch (IOException e) {
            Console.log("disk %s not seen; rescan failed: %s", serial, e.getMessage());
        }
    }

    /**
     * Mounts the disk as {@code bundle}/rootfs (read-only, or as the lower layer of an overlay when
     * {@code overlay}, whose upper layer is on {@code layer} when given, else a tmpfs) and returns the
     * mount points, innermost last, for {@link #unmount}.
     */
    static List<Path> mount(String device, String fsType, Path bundle, boolean overlay, Path layerDevice) throws IOException {
        List<Path> mounts = new ArrayList<>();
        Path rootfs = Files.createDirectories(bundle.resolve("rootfs"));
        try {
            if (!overlay) {
                Mounts.mount(device, rootfs.toString(), fsType, Mounts.MS_RDONLY, null);
                mounts.add(rootfs);
                return mounts;
            }
            Path image = Files.createDirectories(bundle.resolve("image"));
            Mounts.mount(device, image.toString(), fsType, Mounts.MS_RDONLY, null);
            mounts.add(image);
            Path layer = Files.createDirectories(bundle.resolve("layer"));
            if (layerDevice != null) {
                // the host made it with mkfs.ext4 and nothing in it needs lazy init (a sparse file reads
                // zeros): noinit_itable keeps the kernel from writing inode tables under the container
                Mounts.mount(layerDevice.toString(), layer.toString(), "ext4", 0, "noinit_itable");
            } else {
                Mounts.mount("tmpfs", layer.toString(), "tmpfs", 0, "mode=0755");
            }
            mounts.add(layer);
            Files.createDirectories(layer.resolve("upper"));
            Files.createDirectories(layer.resolve("work"));
            // a builder, not +: the image's cache training makes no writable root, so this
            // concatenation's shape would be linked by a class spun in a pod's first Create
            String options = new StringBuilder("lowerdir=").append(image).append(",upperdir=").append(layer.resolve("upper"))
                    .append(",workdir=").append(layer.resolve("work")).toString();
            Mounts.mount("overlay", rootfs.toString(), "overlay", 0, options);
            mounts.add(rootfs);
            return mounts;
        } catch (RuntimeException e) {
            unmount(mounts);
            throw e;
        }
    }

    /**
     * A writable root shared from a host directory by virtio-fs: the tag mounted read-write as
     * {@code bundle}/rootfs itself, with no overlay, so that what the container writes (the pod's
     * files' mount points included) lands in the host's directory, as runc on the host would write
     * it. The guest resolves {@code ..} and links inside the share; virtiofsd exposes nothing above it.
     */
    static List<Path> mountShared(String tag, Path bundle) throws IOException {
        Path rootfs = Files.createDirectories(bundle.resolve("rootfs"));
        Mounts.mount(tag, rootfs.toString(), "virtiofs", 0, null);
        return new ArrayList<>(List.of(rootfs));
    }

    /** Unmounts innermost first, retrying EBUSY for a while (a dying process may still hold a file). */
    static void unmount(List<Path> mounts) {
        for (int i = mounts.size() - 1; i >= 0; i--) {
            unmountRetrying(mounts.get(i).toString(), 50);
        }
    }

    /** The bundle directory the disk was mounted under, once {@link #unmount} has undone its mounts. */
    static void removeBundle(Path bundle) {
        try {
            FileTrees.delete(bundle);
        } catch (IOException e) {
            throw new UncheckedIOException("removing " + bundle, e);
        }
    }

    static void unmountRetrying(String target, int attempts) {
        for (int attempt = 1; ; attempt++) {
            try {
                Mounts.umount(target, 0);
                return;
            } catch (ErrnoException e) {
                if (e.is(Errno.EINVAL) || e.is(Errno.ENOENT)) {
                    return; // not mounted
                }
                if (!e.is(Errno.EBUSY) || attempt >= attempts) {
                    throw e;
                }
            }
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}
