package io.jrunc.vm.spec;

import io.jrunc.vm.Sizes;
import io.jrunc.vm.VmException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A container's writable layer: a sparse file beside its image (layer.img), formatted ext4 on the host
 * when the container is created and attached read-write to the VM with the image. The guest puts the
 * overlay's upper and work directories on it, so the container's writes land here and never in the
 * image; they survive the container's and the pod's restarts (the file stays with the container) and
 * go with `rm`. Its size bounds the writes: a container that fills it gets ENOSPC, and its neighbours,
 * each on its own layer, do not.
 * Formatted by {@link Mkfs#writable}.
 */
public final class LayerImage {
    public static final String FILE = "layer.img";
    public static final long DEFAULT_BYTES = 1L << 30;
    /** Below this mkfs.ext4 has no room for a journal and the overlay's directories. */
    public static final long MIN_BYTES = 8L << 20;
    /** What ext4 with 4 KiB blocks and no 64bit tuning takes as it is. */
    public static final long MAX_BYTES = 16L << 40;

    private LayerImage() {
    }

    /** The size, or the one-line error naming {@code flag}. */
    public static long require(long bytes, String flag) throws VmException {
        if (bytes < MIN_BYTES || bytes > MAX_BYTES) {
            throw new VmException("invalid " + flag + " " + Sizes.format(bytes) + ": a writable layer is "
                    + Sizes.format(MIN_BYTES) + " to " + Sizes.format(MAX_BYTES));
        }
        return bytes;
    }

    public static Path file(Path containerDir) {
        return containerDir.resolve(FILE);
    }

    /** Whether the container has a writable layer (a read-only root has none). */
    public static boolean exists(Path containerDir) {
        return Files.isRegularFile(file(containerDir));
    }

    /**
     * The layer disk's serial, derived from the image's ("jr" + 16 hex digits becomes "jl" + the same),
     * so the container's record needs no second serial and the two stay paired.
     */
    public static String serial(String imageSerial) {
        return "jl" + imageSerial.substring(2);
    }

    public static void make(Path file, long bytes) throws VmException {
        Mkfs.writable(file, bytes, "the writable layer " + file);
    }
}
