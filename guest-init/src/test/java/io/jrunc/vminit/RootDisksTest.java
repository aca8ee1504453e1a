package io.jrunc.vminit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The late-disk search. A stand-in for sysfs (directories under a temporary dir): a hot-plugged disk
 * that the guest kernel misses cannot be produced on demand in a VM, and the host has no disk to plug;
 * the stand-in's "kernel" is a thread that makes the disk appear only once the rescan file was written.
 */
class RootDisksTest {
    @TempDir
    Path dir;

    @Test
    void aLateDiskIsFoundAfterThePciBusIsRescanned() throws Exception {
        Path block = Files.createDirectories(dir.resolve("block"));
        Path rescan = dir.resolve("rescan");
        Thread kernel = Thread.ofPlatform().start(() -> {
            try {
                while (!Files.exists(rescan)) {
                    Thread.sleep(10);
                }
                Path vdc = Files.createDirectories(block.resolve("vdc"));
                Files.writeString(vdc.resolve("serial"), "jr0123456789abcdef\n");
            } catch (Exception e) {
                throw new RuntimeException(e);
            }
        });
        long t0 = System.nanoTime();
        Path device = RootDisks.find("jr0123456789abcdef", 5_000, block, rescan, 300);
        kernel.join();
        assertEquals(Path.of("/dev/vdc"), device);
        assertEquals("1", Files.readString(rescan));
        assertFalse((System.nanoTime() - t0) / 1_000_000 < 300, "rescanned only after the grace time");
    }

    @Test
    void aDiskThatNeverAppearsIsNullAfterTheWaitAndTheBusWasRescannedOnce() throws Exception {
        Path block = Files.createDirectories(dir.resolve("block"));
        Path other = Files.createDirectories(block.resolve("vda"));
        Files.writeString(other.resolve("serial"), "jrffffffffffffffff\n");
        Path rescan = dir.resolve("rescan");
        assertNull(RootDisks.find("jr0000000000000000", 600, block, rescan, 100));
        assertEquals("1", Files.readString(rescan));
    }

    @Test
    void aDiskAlreadyThereIsFoundWithoutARescan() throws Exception {
        Path block = Files.createDirectories(dir.resolve("block"));
        Path vdb = Files.createDirectories(block.resolve("vdb"));
        Files.writeString(vdb.resolve("serial"), "rootfs0\n");
        Path rescan = dir.resolve("rescan");
        assertEquals(Path.of("/dev/vdb"), RootDisks.find("rootfs0", 1_000, block, rescan, 100));
        assertFalse(Files.exists(rescan));
    }
}
