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
    void aLateDiskIsFoundAfterTheBusesAreRescanned() throws Exception {
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
        Path device = RootDisks.find("jr0123456789abcdef", 5_000, block, () -> write(rescan), 300);
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
        assertNull(RootDisks.find("jr0000000000000000", 600, block, () -> write(rescan), 100));
        assertEquals("1", Files.readString(rescan));
    }

    @Test
    void aDiskAlreadyThereIsFoundWithoutARescan() throws Exception {
        Path block = Files.createDirectories(dir.resolve("block"));
        Path vdb = Files.createDirectories(block.resolve("vdb"));
        Files.writeString(vdb.resolve("serial"), "rootfs0\n");
        Path rescan = dir.resolve("rescan");
        assertEquals(Path.of("/dev/vdb"), RootDisks.find("rootfs0", 1_000, block, () -> write(rescan), 100));
        assertFalse(Files.exists(rescan));
    }

    @Test
    void aScsiDiskIsKnownByItsUnitSerialNumberPage() throws Exception {
        Path block = Files.createDirectories(dir.resolve("block"));
        Path sda = Files.createDirectories(block.resolve("sda/device"));
        // what qemu's scsi-hd gives for serial jr01: page 0x80, length 4, the serial
        Files.write(sda.resolve("vpd_pg80"), new byte[] {0, (byte) 0x80, 0, 4, 'j', 'r', '0', '1'});
        Path sdb = Files.createDirectories(block.resolve("sdb/device"));
        Files.write(sdb.resolve("vpd_pg80"), new byte[] {0, (byte) 0x80, 0, 6, 'j', 'r', '0', '2', ' ', ' '});
        Files.createDirectories(block.resolve("loop0"));
        assertEquals(Path.of("/dev/sdb"), RootDisks.find("jr02", 1_000, block, () -> {}, 100));
        assertEquals(Path.of("/dev/sda"), RootDisks.find("jr01", 1_000, block, () -> {}, 100));
        assertNull(RootDisks.serial(block.resolve("loop0")));
    }

    private static void write(Path rescan) {
        try {
            Files.writeString(rescan, "1");
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
