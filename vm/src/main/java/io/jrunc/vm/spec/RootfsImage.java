package io.jrunc.vm.spec;

import io.jrunc.vm.VmException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/**
 * A container's root filesystem image: an ext4 file made from the bundle's rootfs directory with
 * e2fsprogs' {@code mkfs.ext4 -d} (no mount, no root needed), attached read-only to the VM. Sized at
 * the tree's size plus a quarter and 16 MiB for ext4's own metadata (inode tables, journal off).
 */
public final class RootfsImage {
    private RootfsImage() {
    }

    public static void make(Path rootfs, Path image) throws VmException {
        long size = treeSize(rootfs);
        long imageBytes = Math.max(16L << 20, size + size / 4 + (16L << 20));
        Mkfs.ext4(image, imageBytes, List.of("-O", "^has_journal", "-E", "root_owner=0:0", "-d", rootfs.toString()),
                "the image of " + rootfs);
    }

    static long treeSize(Path dir) throws VmException {
        try (Stream<Path> files = Files.walk(dir)) {
            return files.mapToLong(p -> {
                try {
                    return Files.isRegularFile(p, java.nio.file.LinkOption.NOFOLLOW_LINKS) ? Files.size(p) + 4096 : 4096;
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }).sum();
        } catch (IOException | UncheckedIOException e) {
            throw new VmException("cannot read the rootfs " + dir + ": " + e.getMessage());
        }
    }
}
