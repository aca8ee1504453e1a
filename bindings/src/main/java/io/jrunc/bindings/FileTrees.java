package io.jrunc.bindings;

import java.io.IOException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.attribute.BasicFileAttributeView;
import java.util.ArrayList;
import java.util.List;

/**
 * Removing a directory tree without ever following a symbolic link, even one that replaces a
 * directory while the removal runs. Every step is relative to an open descriptor of the directory
 * above it: the JDK's {@link SecureDirectoryStream} on Linux is fstatat, openat with O_NOFOLLOW and
 * unlinkat on that descriptor (no native call of ours, so a command that removes a state directory
 * links no native function). A link is removed as a link; what it points to is never touched.
 * Only entries that fstatat shows as directories are opened, so a FIFO in the tree (a container's exec
 * FIFO) is never opened, which would block. The removal goes on past an entry it cannot remove and
 * then reports the first failure, the others attached as suppressed. It crosses into mounts below the
 * tree as rm -r does (the mount point itself then fails, EBUSY): callers unmount first.
 */
public final class FileTrees {
    private FileTrees() {}

    /** Removes {@code path} and, when it is a directory, everything under it. Absent is not an error. */
    public static void delete(Path path) throws IOException {
        Path absolute = path.toAbsolutePath().normalize();
        Path parent = absolute.getParent();
        if (parent == null) {
            throw new IOException("refusing to remove the root directory");
        }
        List<IOException> failures = new ArrayList<>();
        try (DirectoryStream<Path> stream = Files.newDirectoryStream(parent)) {
            if (!(stream instanceof SecureDirectoryStream<Path> secure)) {
                throw new IOException(parent + ": the file system gives no descriptor-relative directory access");
            }
            delete(secure, absolute.getFileName(), absolute, failures);
        } catch (NoSuchFileException e) {
            return; // the parent is gone, and the tree with it
        }
        if (!failures.isEmpty()) {
            IOException first = failures.getFirst();
            failures.subList(1, failures.size()).forEach(first::addSuppressed);
            throw first;
        }
    }

    /**
     * Removes entry {@code name} of {@code dir}: a directory's entries first, then the directory;
     * {@code path} is where it is, for messages.
     */
    private static void delete(SecureDirectoryStream<Path> dir, Path name, Path path, List<IOException> failures) {
        try {
            boolean directory;
            try {
                directory = dir.getFileAttributeView(name, BasicFileAttributeView.class, LinkOption.NOFOLLOW_LINKS)
                        .readAttributes().isDirectory();
            } catch (NoSuchFileException e) {
                return;
            }
            if (!directory) {
                dir.deleteFile(name);
                return;
            }
            try (SecureDirectoryStream<Path> child = dir.newDirectoryStream(name, LinkOption.NOFOLLOW_LINKS)) {
                List<Path> names = new ArrayList<>();
                for (Path entry : child) {
                    names.add(entry.getFileName());
                }
                for (Path entry : names) {
                    delete(child, entry, path.resolve(entry), failures);
                }
            }
            dir.deleteDirectory(name);
        } catch (NoSuchFileException e) {
            // removed meanwhile: that is the goal
        } catch (FileSystemException e) {
            // the JDK names the entry relative to its directory: name it in full
            String reason = e.getReason() != null ? e.getReason()
                    : e instanceof DirectoryNotEmptyException ? "Directory not empty" : e.getClass().getSimpleName();
            FileSystemException named = new FileSystemException(path.toString(), null, reason);
            named.initCause(e);
            failures.add(named);
        } catch (IOException e) {
            failures.add(e);
        }
    }
}
