package io.jrunc.vminit;

import io.jrunc.agent.api.tar.TarEntry;
import io.jrunc.agent.api.tar.TarNames;
import io.jrunc.agent.api.tar.TarReader;
import io.jrunc.agent.api.tar.TarWriter;
import io.jrunc.bindings.Errno;
import io.jrunc.bindings.ErrnoException;
import io.jrunc.bindings.FileDescriptors;
import io.jrunc.bindings.RootedFiles;
import io.jrunc.bindings.RootedFiles.Stat;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Trees read from and written into a container's root filesystem for the Files service. Every path is
 * resolved inside the root (the descriptor {@code root}) with openat2's RESOLVE_IN_ROOT, so a
 * symbolic link in the container, to "/" or to "..", leads to the container's own files and never
 * to the guest's; below the path named, each entry is opened from its directory's descriptor with
 * O_NOFOLLOW, so a link inside the tree is copied as a link. Regular files, directories and links
 * are copied; devices, FIFOs and sockets are passed over.
 */
final class ContainerFiles {
    private static final int O_PATH_DIR = FileDescriptors.O_PATH | FileDescriptors.O_DIRECTORY;
    private static final int NOFOLLOW = RootedFiles.AT_SYMLINK_NOFOLLOW;

    private ContainerFiles() {
    }

    /** A failure that answers the call with its code: not found, or the tree is not what the copy needs. */
    static final class CopyException extends IOException {
        final boolean notFound;

        CopyException(String message, boolean notFound) {
            super(message);
            this.notFound = notFound;
        }
    }

    /** {@code path} and its errno as one message: "/x/y: no such file or directory". */
    static CopyException failure(String path, ErrnoException e) {
        return new CopyException(path + ": " + Errno.describe(e.errno()), e.is(Errno.ENOENT));
    }

    /** The kind of what {@code path} names, a final link followed inside the root; null when absent. */
    static Stat stat(int root, String path) throws CopyException {
        int fd;
        try {
            fd = RootedFiles.openInRoot(root, path, FileDescriptors.O_PATH, 0);
        } catch (ErrnoException e) {
            if (e.is(Errno.ENOENT)) {
                int dir = parentInRoot(root, path); // a missing directory on the way is an error, not "absent"
                FileDescriptors.closeQuietly(dir);
                return null;
            }
            throw failure(path, e);
        }
        try {
            return RootedFiles.stat(fd);
        } finally {
            FileDescriptors.closeQuietly(fd);
        }
    }

    private static int parentInRoot(int root, String path) throws CopyException {
        String parent = parent(path);
        try {
            return RootedFiles.openInRoot(root, parent, O_PATH_DIR, 0);
        } catch (ErrnoException e) {
            throw failure(parent, e);
        }
    }

    static String parent(String path) {
        String p = trimSlashes(path);
        int slash = p.lastIndexOf('/');
        return slash <= 0 ? "/" : p.substring(0, slash);
    }

    static String baseName(String path) {
        String p = trimSlashes(path);
        return p.substring(p.lastIndexOf('/') + 1);
    }

    private static String trimSlashes(String path) {
        String p = path;
        while (p.length() > 1 && p.endsWith("/")) {
            p = p.substring(0, p.length() - 1);
        }
        return p;
    }

    // ---------------------------------------------------------------------------------------------
    // Out of the container

    /**
     * Opens what {@code path} names, O_PATH: the final link followed inside the root when
     * {@code follow}, else the link itself. A path that is the root, or ends with "/" or "/.", is the
     * directory it names.
     */
    static int openSource(int root, String path, boolean follow) throws CopyException {
        String p = path;
        boolean directoryOnly = p.endsWith("/") || p.endsWith("/.") || p.equals(".");
        String base = baseName(p);
        try {
            if (directoryOnly || follow || base.isEmpty() || base.equals("/") || base.equals(".") || base.equals("..")) {
                return RootedFiles.openInRoot(root, p, FileDescriptors.O_PATH | (directoryOnly ? FileDescriptors.O_DIRECTORY : 0), 0);
            }
        } catch (ErrnoException e) {
            throw failure(path, e);
        }
        int dir = parentInRoot(root, p);
        try {
            return RootedFiles.openAt(dir, base, FileDescriptors.O_PATH | FileDescriptors.O_NOFOLLOW, 0);
        } catch (ErrnoException e) {
            throw failure(path, e);
        } finally {
            FileDescriptors.closeQuietly(dir);
        }
    }

    /** Writes the tree at {@code fd} (O_PATH, closed here) as the stream's ".". */
    static void archive(int fd, TarWriter out) throws IOException {
        archive(fd, List.of(), out);
    }

    private static void archive(int fd, List<String> parts, TarWriter out) throws IOException {
        String name = TarNames.name(parts);
        try {
            Stat st = RootedFiles.stat(fd);
            if (st.isRegular()) {
                try (InputStream data = Files.newInputStream(Path.of("/proc/self/fd/" + fd))) {
                    out.write(TarEntry.file(name, st.mode(), st.uid(), st.gid(), st.mtimeSeconds(), st.mtimeNanos(), st.size()), data);
                }
            } else if (st.isSymlink()) {
                out.write(TarEntry.symlink(name, RootedFiles.readlinkAt(fd, ""), st.uid(), st.gid(), st.mtimeSeconds(), st.mtimeNanos()));
            } else if (st.isDirectory()) {
                out.write(TarEntry.directory(name, st.mode(), st.uid(), st.gid(), st.mtimeSeconds(), st.mtimeNanos()));
                List<String> children = new ArrayList<>();
                try (DirectoryStream<Path> list = Files.newDirectoryStream(Path.of("/proc/self/fd/" + fd))) {
                    list.forEach(p -> children.add(p.getFileName().toString()));
                }
                children.sort(null);
                for (String child : children) {
                    int childFd;
                    try {
                        childFd = RootedFiles.openAt(fd, child, FileDescriptors.O_PATH | FileDescriptors.O_NOFOLLOW, 0);
                    } catch (ErrnoException e) {
                        if (e.is(Errno.ENOENT)) {
                            continue; // removed while the copy ran
                        }
                        throw e;
                    }
                    List<String> childParts = new ArrayList<>(parts);
                    childParts.add(child);
                    archive(childFd, childParts, out);
                }
            }
            // devices, FIFOs, sockets: not copied
        } catch (ErrnoException e) {
            throw new IOException(name + ": " + e.goStyle(), e);
        } finally {
            FileDescriptors.closeQuietly(fd);
        }
    }

    // ---------------------------------------------------------------------------------------------
    // Into the container

    /** Opens the directory a copy writes into: it must exist and be a directory. */
    static int openTarget(int root, String directory) throws CopyException {
        try {
            return RootedFiles.openInRoot(root, directory, O_PATH_DIR, 0);
        } catch (ErrnoException e) {
            throw failure(directory, e);
        }
    }

    /** A directory's times, set once everything under it is written (writing into it changes them). */
    private record DirectoryTimes(String path, long seconds, int nanos) {
    }

    /**
     * Writes the stream into the directory {@code directory} (inside {@code root}): its "." becomes
     * {@code name} there, or the directory itself when name is empty.
     */
    static void extract(int root, String directory, String name, TarReader in) throws IOException {
        String base = directory.endsWith("/") ? directory : directory + "/";
        Deque<DirectoryTimes> times = new ArrayDeque<>();
        for (TarEntry e; (e = in.next()) != null; ) {
            List<String> parts = new ArrayList<>();
            if (!name.isEmpty()) {
                parts.add(name);
            }
            try {
                parts.addAll(TarNames.components(e.name()));
            } catch (IllegalArgumentException bad) {
                throw new CopyException(bad.getMessage(), false);
            }
            if (e.kind() == TarEntry.Kind.OTHER) {
                continue;
            }
            if (parts.isEmpty()) {
                if (e.kind() != TarEntry.Kind.DIRECTORY) {
                    throw new CopyException("cannot copy a non-directory onto the directory " + directory, false);
                }
                continue; // the contents of a directory copied into one: the target keeps its own attributes
            }
            String leaf = parts.getLast();
            String parentPath = base + String.join("/", parts.subList(0, parts.size() - 1));
            String path = base + String.join("/", parts);
            int parent;
            try {
                parent = RootedFiles.openInRoot(root, parentPath, O_PATH_DIR, 0);
            } catch (ErrnoException x) {
                throw failure(parentPath, x);
            }
            try {
                switch (e.kind()) {
                    case DIRECTORY -> {
                        directory(parent, leaf, path, e);
                        times.push(new DirectoryTimes(path, e.mtimeSeconds(), e.mtimeNanos()));
                    }
                    case FILE -> file(parent, leaf, path, e, in.content());
                    case SYMLINK -> symlink(parent, leaf, path, e);
                    case OTHER -> throw new AssertionError();
                }
            } catch (ErrnoException x) {
                throw failure(path, x);
            } finally {
                FileDescriptors.closeQuietly(parent);
            }
        }
        while (!times.isEmpty()) {
            DirectoryTimes t = times.pop();
            int parent = RootedFiles.openInRoot(root, parent(t.path()), O_PATH_DIR, 0);
            try {
                RootedFiles.setTimesAt(parent, baseName(t.path()), t.seconds(), t.nanos(), NOFOLLOW);
            } catch (ErrnoException x) {
                throw failure(t.path(), x);
            } finally {
                FileDescriptors.closeQuietly(parent);
            }
        }
    }

    /** What is at {@code name} now (link not followed), or null. */
    private static Stat existing(int parent, String name) {
        try {
            return RootedFiles.statAt(parent, name, NOFOLLOW);
        } catch (ErrnoException e) {
            if (e.is(Errno.ENOENT)) {
                return null;
            }
            throw e;
        }
    }

    private static void directory(int parent, String leaf, String path, TarEntry e) throws CopyException {
        Stat there = existing(parent, leaf);
        if (there == null) {
            RootedFiles.mkdirAt(parent, leaf, 0700);
        } else if (!there.isDirectory()) {
            throw new CopyException("cannot overwrite non-directory " + path + " with a directory", false);
        }
        int fd = RootedFiles.openAt(parent, leaf, FileDescriptors.O_RDONLY | FileDescriptors.O_DIRECTORY
                | FileDescriptors.O_NOFOLLOW, 0);
        try {
            RootedFiles.chownAt(fd, "", e.uid(), e.gid(), RootedFiles.AT_EMPTY_PATH);
            RootedFiles.chmod(fd, e.mode());
        } finally {
            FileDescriptors.closeQuietly(fd);
        }
    }

    private static void refuseDirectory(int parent, String leaf, String path) throws CopyException {
        Stat there = existing(parent, leaf);
        if (there != null && there.isDirectory()) {
            throw new CopyException("cannot overwrite directory " + path + " with a non-directory", false);
        }
    }

    private static String temporaryName() {
        return ".jrunc-cp-" + Long.toHexString(ThreadLocalRandom.current().nextLong());
    }

    /** Written under a temporary name, then renamed over {@code leaf}: never half a file at its name. */
    private static void file(int parent, String leaf, String path, TarEntry e, InputStream data) throws IOException {
        refuseDirectory(parent, leaf, path);
        String tmp = temporaryName();
        int fd = RootedFiles.openAt(parent, tmp, FileDescriptors.O_WRONLY | FileDescriptors.O_CREAT
                | FileDescriptors.O_EXCL | FileDescriptors.O_NOFOLLOW, 0600);
        boolean done = false;
        try {
            byte[] buffer = new byte[256 * 1024];
            for (int n; (n = data.read(buffer)) > 0; ) {
                byte[] chunk = n == buffer.length ? buffer : java.util.Arrays.copyOf(buffer, n);
                for (int at = 0; at < n; ) {
                    int w = FileDescriptors.write(fd, at == 0 ? chunk : java.util.Arrays.copyOfRange(chunk, at, n));
                    at += w;
                }
            }
            RootedFiles.chownAt(fd, "", e.uid(), e.gid(), RootedFiles.AT_EMPTY_PATH);
            RootedFiles.chmod(fd, e.mode()); // after chown, which clears setuid and setgid
            FileDescriptors.close(fd);
            fd = -1;
            RootedFiles.setTimesAt(parent, tmp, e.mtimeSeconds(), e.mtimeNanos(), NOFOLLOW);
            RootedFiles.renameAt(parent, tmp, parent, leaf, 0);
            done = true;
        } finally {
            FileDescriptors.closeQuietly(fd);
            if (!done) {
                unlinkQuietly(parent, tmp);
            }
        }
    }

    private static void symlink(int parent, String leaf, String path, TarEntry e) throws CopyException {
        refuseDirectory(parent, leaf, path);
        String tmp = temporaryName();
        RootedFiles.symlinkAt(e.linkTarget(), parent, tmp);
        boolean done = false;
        try {
            RootedFiles.chownAt(parent, tmp, e.uid(), e.gid(), NOFOLLOW);
            RootedFiles.setTimesAt(parent, tmp, e.mtimeSeconds(), e.mtimeNanos(), NOFOLLOW);
            RootedFiles.renameAt(parent, tmp, parent, leaf, 0);
            done = true;
        } finally {
            if (!done) {
                unlinkQuietly(parent, tmp);
            }
        }
    }

    private static void unlinkQuietly(int dir, String name) {
        try {
            RootedFiles.unlinkAt(dir, name, 0);
        } catch (ErrnoException ignored) {
            // the first failure is the one reported
        }
    }
}
