package io.jrunc.vm.qemu;

import io.jrunc.vm.Sizes;
import io.jrunc.vm.VmException;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The pod's swap area on the host (docs/vm.md, "The swap area"): a sparse raw file in the pod's state
 * directory, made afresh at every boot (it holds nothing that outlives the VM: the agent formats it
 * each time), attached as virtio-blk with the guest's discards passed through to the file, so blocks
 * the guest frees are given back to the host.
 *
 * <ul>
 * <li>{@code discard=unmap} on the drive and {@code discard=on} on the device: the guest's discards
 * become holes punched in the file (fallocate PUNCH_HOLE), which st_blocks shows.
 * <li>{@code cache=unsafe}: host page cache, and the guest's flushes ignored. A scratch area: a crash
 * loses nothing that could be used again, and swap-out under emulation is slow enough without a flush
 * reaching the host's disk (writeback would honour them).
 * <li>{@code serial=}{@value #SERIAL}: the agent finds the disk by it, never by vdX order.
 * </ul>
 */
public final class SwapDisk {
    /** The disk's serial (within the 20 characters virtio-blk keeps) and the file's name. */
    public static final String SERIAL = "jrunc-swap";
    public static final String FILE = "swap.img";
    /** The guest's page size on x86-64; the header takes one page, the kernel wants one more. */
    static final long PAGE = 4096;
    public static final long MIN_BYTES = 2 * PAGE;
    /** last_page in the header is a u32. */
    public static final long MAX_BYTES = 0xFFFF_FFFFL * PAGE;

    private SwapDisk() {
    }

    /** Refuses a size the guest could not use as an area (under 2 pages, beyond u32 pages). */
    public static long require(long bytes, String what) throws VmException {
        if (bytes != 0 && (bytes < MIN_BYTES || bytes > MAX_BYTES)) {
            throw new VmException("invalid " + what + " " + Sizes.format(bytes) + ": a swap area is 0 (none) or "
                    + Sizes.format(MIN_BYTES) + " to " + Sizes.format(MAX_BYTES));
        }
        return bytes;
    }

    public static Path file(Path podDir) {
        return podDir.resolve(FILE);
    }

    /** A new sparse file of {@code bytes} (rounded down to pages): nothing allocated on the host yet. */
    public static Path makeFresh(Path podDir, long bytes) throws IOException {
        Path file = file(podDir);
        Files.deleteIfExists(file);
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
            f.setLength(bytes / PAGE * PAGE);
        }
        return file;
    }

    /** qemu's arguments for the area. */
    public static List<String> qemuArgs(Path file) {
        return List.of(
                "-drive", "file=" + file + ",if=none,id=swap0,format=raw,discard=unmap,cache=unsafe",
                "-device", "virtio-blk-pci,drive=swap0,serial=" + SERIAL + ",discard=on");
    }
}
