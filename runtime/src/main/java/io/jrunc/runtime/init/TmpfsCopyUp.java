package io.jrunc.runtime.init;

import io.jrunc.bindings.FileDescriptors;
import io.jrunc.bindings.Mounts;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;

/**
 * runc's "tmpcopyup" mount option: a tmpfs that starts with the content the image had at its
 * destination (podman uses it for --read-only's /tmp, /var/tmp and /run). A descriptor of the
 * destination directory is opened before the tmpfs covers it; through /proc/thread-self/fd that
 * descriptor still reaches the covered directory, so its tree is copied into the new tmpfs with modes,
 * owners, times and symlinks kept, and the tmpfs root takes the directory's mode and owner.
 */
final class TmpfsCopyUp {
    private TmpfsCopyUp() {}

    static void mount(String source, Path dest, long flags, String data) {
        int covered = FileDescriptors.open(dest.toString(),
                FileDescriptors.O_RDONLY | FileDescriptors.O_DIRECTORY | FileDescriptors.O_CLOEXEC);
        try {
            Mounts.mount(source, dest.toString(), "tmpfs", flags & ~Mounts.MS_RDONLY, data);
            // "/." so the walk starts at the directory the magic link leads to, not at the link itself.
            Path from = Path.of("/proc/thread-self/fd/" + covered + "/.");
            copyTree(from, dest);
            if ((flags & Mounts.MS_RDONLY) != 0) {
                Mounts.mount(null, dest.toString(), null, Mounts.MS_REMOUNT | flags, data);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("tmpcopyup " + dest, e);
        } finally {
            FileDescriptors.closeQuietly(covered);
        }
    }

    private static void copyTree(Path from, Path to) throws IOException {
        copyOwnerAndMode(from, to);
        Files.walkFileTree(from, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) throws IOException {
                if (!dir.equals(from)) {
                    Path target = to.resolve(from.relativize(dir).toString());
                    Files.copy(dir, target, StandardCopyOption.COPY_ATTRIBUTES, LinkOption.NOFOLLOW_LINKS);
                    copyOwnerAndMode(dir, target);
                }
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                Path target = to.resolve(from.relativize(file).toString());
                Files.copy(file, target, StandardCopyOption.COPY_ATTRIBUTES, LinkOption.NOFOLLOW_LINKS);
                if (!attrs.isSymbolicLink()) {
                    copyOwnerAndMode(file, target);
                }
                return FileVisitResult.CONTINUE;
            }
        });
    }

    /** Numeric owner and the full mode, sticky and set-id bits included (/tmp is 1777). */
    private static void copyOwnerAndMode(Path from, Path to) throws IOException {
        int uid = (Integer) Files.getAttribute(from, "unix:uid", LinkOption.NOFOLLOW_LINKS);
        int gid = (Integer) Files.getAttribute(from, "unix:gid", LinkOption.NOFOLLOW_LINKS);
        int mode = (Integer) Files.getAttribute(from, "unix:mode", LinkOption.NOFOLLOW_LINKS);
        Files.setAttribute(to, "unix:uid", uid, LinkOption.NOFOLLOW_LINKS);
        Files.setAttribute(to, "unix:gid", gid, LinkOption.NOFOLLOW_LINKS);
        Files.setAttribute(to, "unix:mode", mode & 07777, LinkOption.NOFOLLOW_LINKS);
    }
}
