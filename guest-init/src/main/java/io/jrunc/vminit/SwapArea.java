package io.jrunc.vminit;

import io.jrunc.agent.api.pb.v1.AddSwapRequest;
import io.jrunc.agent.api.pb.v1.AddSwapResponse;
import io.jrunc.bindings.ErrnoException;
import io.jrunc.bindings.Swap;
import io.jrunc.ttrpc.Code;
import io.jrunc.ttrpc.RpcException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.UUID;

/**
 * The pod's swap area (docs/guest-init.md, "The pod's swap area"): the virtio-blk disk whose serial
 * the host gave, formatted by the agent with its own header ({@link SwapHeader}) at every boot, marked
 * non-rotational, and enabled with swapon(2) SWAP_FLAG_DISCARD | SWAP_FLAG_DISCARD_PAGES. One area per
 * pod, shared by its containers (their cgroups get no area of their own: memory.swap.max caps each).
 *
 * <p>rotational 0 matters: virtio-blk reports 1, and the kernel tracks a swap area in clusters, which
 * is what issues discards for freed pages, only on a non-rotational device. Without it the discard
 * flags are accepted and nothing is ever discarded, so the host's sparse file keeps its high-water mark.
 */
final class SwapArea {
    static final String LABEL = "jrunc-swap";
    private static final int FLAGS = Swap.SWAP_FLAG_DISCARD | Swap.SWAP_FLAG_DISCARD_PAGES;

    private String serial;
    private Path device;

    /** AddSwap: formats and enables the area once; the same serial again answers it. */
    synchronized AddSwapResponse add(AddSwapRequest r) throws RpcException, InterruptedException {
        if (r.getSerial().isEmpty()) {
            throw new RpcException(Code.INVALID_ARGUMENT, "serial: must be set");
        }
        if (serial != null && !serial.equals(r.getSerial())) {
            throw new RpcException(Code.ALREADY_EXISTS, "the pod already has a swap area (serial " + serial + ")");
        }
        if (serial != null) {
            return answer();
        }
        try {
            Path dev = RootDisks.find(r.getSerial(), 10_000);
            if (dev == null) {
                throw new RpcException(Code.NOT_FOUND, "no disk with serial " + r.getSerial());
            }
            enable(dev);
            serial = r.getSerial();
            device = dev;
            return answer();
        } catch (IOException e) {
            throw new RpcException(Code.INTERNAL, "swap area " + r.getSerial() + ": " + e.getMessage());
        } catch (ErrnoException e) {
            throw new RpcException(Code.FAILED_PRECONDITION, "swap area " + r.getSerial() + ": " + e.getMessage());
        }
    }

    private static void enable(Path dev) throws IOException, RpcException {
        long t0 = System.nanoTime();
        String name = dev.getFileName().toString();
        int pageSize = Swap.pageSize();
        // /sys/block/DEV/size counts 512-byte sectors whatever the device's block size
        long bytes = Long.parseLong(Files.readString(Path.of("/sys/block", name, "size")).trim()) * 512;
        byte[] header;
        try {
            header = SwapHeader.page(bytes / pageSize, pageSize, UUID.randomUUID(), LABEL);
        } catch (IllegalArgumentException e) {
            throw new RpcException(Code.INVALID_ARGUMENT, "swap device " + dev + " (" + bytes + " bytes): " + e.getMessage());
        }
        try (FileChannel ch = FileChannel.open(dev, StandardOpenOption.WRITE)) {
            ByteBuffer page = ByteBuffer.wrap(header);
            while (page.hasRemaining()) {
                ch.write(page, page.position());
            }
            ch.force(true);
        }
        Files.writeString(Path.of("/sys/block", name, "queue/rotational"), "0");
        Swap.swapon(dev.toString(), FLAGS);
        Console.log("swap area %s: %d MiB formatted and enabled in %.1f ms (rotational 0, discard)", dev, bytes >> 20,
                (System.nanoTime() - t0) / 1e6);
    }

    private AddSwapResponse answer() throws RpcException {
        try {
            for (var area : PodService.swaps()) {
                if (area.getDevice().equals(device.toString())) {
                    return AddSwapResponse.newBuilder().setArea(area.toBuilder().setSerial(serial)).build();
                }
            }
        } catch (IOException e) {
            throw new RpcException(Code.INTERNAL, "reading /proc/swaps: " + e.getMessage());
        }
        throw new RpcException(Code.INTERNAL, "swap area " + device + " is not in /proc/swaps");
    }

    /** The serial of the enabled area, or null. */
    synchronized String serial() {
        return serial;
    }
}
