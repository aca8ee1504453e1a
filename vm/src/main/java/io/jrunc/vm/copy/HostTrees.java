package io.jrunc.vm.copy;

import io.jrunc.agent.api.tar.TarEntry;
import io.jrunc.agent.api.tar.TarNames;
import io.jrunc.agent.api.tar.TarReader;
import io.jrunc.agent.api.tar.TarWriter;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributeView;
import java.nio.file.attribute.FileTime;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * The host's side of a copy: a host tree written as the copy calls' tar stream, and such a stream
 * written into a host directory. Regular files, directories and symbolic links, with mode (setuid,
 * setgid and sticky included), owner and group (when jrunc-vm runs as root; otherwise the files are
 * the caller's, as any unprivileged copy makes them) and modification time.
 *
 * <p>A stream from a container is not trusted: member names must stay below the top
 * ({@link TarNames}), and a member is never written through a symbolic link, so a link the stream
 * made (say "a" to "/etc") cannot carry a later member ("a/passwd") out of the destination. Files are
 * written under a temporary name and renamed into place when complete.
 */
public final class HostTrees {
    private static final LinkOption[] NOFOLLOW = {LinkOption.NOFOLLOW_LINKS};

    private HostTrees() {
    }

    /** Host attributes of {@code path} (its final link followed when {@code follow}). */
    static Map<String, Object> attributes(Path path, boolean follow) throws IOException {
        return Files.readAttributes(path, "unix:mode,uid,gid,size,lastModifiedTime,isDirectory,isRegularFile,isSymbolicLink",
                follow ? new LinkOption[0] : NOFOLLOW);
    }

    /** Writes the tree at {@code top} as the stream's "."; the top's final link followed when {@code follow}. */
    public static void archive(Path top, boolean follow, TarWriter out) throws IOException {
        archive(top, List.of(), follow, out);
    }

    private static void archive(Path path, List<String> parts, boolean follow, TarWriter out) throws IOException {
        Map<String, Object> a;
        try {
            a = attributes(path, follow);
        } catch (NoSuchFileException e) {
            if (!parts.isEmpty()) {
                return; // removed while the copy ran
            }
            throw e;
        }
        String name = TarNames.name(parts);
        int mode = (Integer) a.get("mode");
        long uid = ((Integer) a.get("uid")).longValue() & 0xffffffffL;
        long gid = ((Integer) a.get("gid")).longValue() & 0xffffffffL;
        FileTime t = (FileTime) a.get("lastModifiedTime");
        long nanos = t.to(TimeUnit.NANOSECONDS);
        long seconds = Math.floorDiv(nanos, 1_000_000_000L);
        int fraction = (int) Math.floorMod(nanos, 1_000_000_000L);
        if ((Boolean) a.get("isSymbolicLink")) {
            out.write(TarEntry.symlink(name, Files.readSymbolicLink(path).toString(), uid, gid, seconds, fraction));
        } else if ((Boolean) a.get("isRegularFile")) {
            try (InputStream data = Files.newInputStream(path, follow ? new LinkOption[0] : NOFOLLOW)) {
                out.write(TarEntry.file(name, mode, uid, gid, seconds, fraction, (Long) a.get("size")), data);
            }
        } else if ((Boolean) a.get("isDirectory")) {
            out.write(TarEntry.directory(name, mode, uid, gid, seconds, fraction));
            List<String> children = new ArrayList<>();
            try (DirectoryStream<Path> list = Files.newDirectoryStream(path)) {
                list.forEach(p -> children.add(p.getFileName().toString()));
            }
            children.sort(null);
            for (String child : children) {
                List<String> childParts = new ArrayList<>(parts);
                childParts.add(child);
                archive(path.resolve(child), childParts, false, out);
            }
        }
        // devices, FIFOs, sockets: not copied
    }

    /** A directory's times, set once everything under it is written. */
    private record DirectoryTimes(Path path, FileTime time) {
    }

    /**
     * Writes the stream into {@code directory}: its "." becomes {@code name} there, or is merged into
     * {@code directory} itself when name is empty (whose own attributes are then left alone).
     */
    public static void extract(Path directory, String name, TarReader in) throws IOException {
        Path base = directory.toRealPath();
        boolean owners = runningAsRoot();
        Deque<DirectoryTimes> times = new ArrayDeque<>();
        for (TarEntry e; (e = in.next()) != null; ) {
            List<String> parts = new ArrayList<>();
            if (!name.isEmpty()) {
                parts.add(name);
            }
            try {
                parts.addAll(TarNames.components(e.name()));
            } catch (IllegalArgumentException bad) {
                throw new IOException(bad.getMessage());
            }
            if (e.kind() == TarEntry.Kind.OTHER) {
                continue;
            }
            if (parts.isEmpty()) {
                if (e.kind() != TarEntry.Kind.DIRECTORY) {
                    throw new IOException("cannot copy a non-directory onto the directory " + base);
                }
                continue;
            }
            Path parent = base;
            for (String part : parts.subList(0, parts.size() - 1)) {
                parent = parent.resolve(part);
                if (!Files.isDirectory(parent, NOFOLLOW)) {
                    throw new IOException(parent + ": not a directory (a member would be written through it)");
                }
            }
            Path target = parent.resolve(parts.getLast());
            switch (e.kind()) {
                case DIRECTORY -> {
                    if (Files.exists(target, NOFOLLOW) && !Files.isDirectory(target, NOFOLLOW)) {
                        throw new IOException("cannot overwrite non-directory " + target + " with a directory");
                    }
                    try {
                        Files.createDirectory(target);
                    } catch (FileAlreadyExistsException exists) {
                        // a directory already: it takes the member's attributes
                    }
                    attributes(target, e, owners);
                    times.push(new DirectoryTimes(target, time(e)));
                }
                case FILE -> {
                    refuseDirectory(target);
                    Path tmp = parent.resolve(temporaryName());
                    boolean done = false;
                    try {
                        try (OutputStream out = Files.newOutputStream(tmp, java.nio.file.StandardOpenOption.CREATE_NEW,
                                java.nio.file.StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS)) {
                            in.content().transferTo(out);
                        }
                        attributes(tmp, e, owners);
                        Files.getFileAttributeView(tmp, BasicFileAttributeView.class, NOFOLLOW).setTimes(time(e), null, null);
                        Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
                        done = true;
                    } finally {
                        if (!done) {
                            Files.deleteIfExists(tmp);
                        }
                    }
                }
                case SYMLINK -> {
                    refuseDirectory(target);
                    Path tmp = parent.resolve(temporaryName());
                    Files.createSymbolicLink(tmp, Path.of(e.linkTarget()));
                    boolean done = false;
                    try {
                        if (owners) {
                            Files.setAttribute(tmp, "unix:uid", (int) e.uid(), NOFOLLOW);
                            Files.setAttribute(tmp, "unix:gid", (int) e.gid(), NOFOLLOW);
                        }
                        Files.getFileAttributeView(tmp, BasicFileAttributeView.class, NOFOLLOW).setTimes(time(e), null, null);
                        Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
                        done = true;
                    } finally {
                        if (!done) {
                            Files.deleteIfExists(tmp);
                        }
                    }
                }
                case OTHER -> throw new AssertionError();
            }
        }
        while (!times.isEmpty()) {
            DirectoryTimes t = times.pop();
            Files.getFileAttributeView(t.path(), BasicFileAttributeView.class, NOFOLLOW).setTimes(t.time(), null, null);
        }
    }

    private static void refuseDirectory(Path target) throws IOException {
        if (Files.isDirectory(target, NOFOLLOW)) {
            throw new IOException("cannot overwrite directory " + target + " with a non-directory");
        }
    }

    /** Owner and group (as root), then the mode: chown clears setuid and setgid. */
    private static void attributes(Path path, TarEntry e, boolean owners) throws IOException {
        if (owners) {
            Files.setAttribute(path, "unix:uid", (int) e.uid(), NOFOLLOW);
            Files.setAttribute(path, "unix:gid", (int) e.gid(), NOFOLLOW);
        }
        Files.setAttribute(path, "unix:mode", e.mode(), NOFOLLOW);
    }

    private static FileTime time(TarEntry e) {
        return FileTime.from(Math.addExact(Math.multiplyExact(e.mtimeSeconds(), 1_000_000_000L), e.mtimeNanos()),
                TimeUnit.NANOSECONDS);
    }

    private static String temporaryName() {
        return ".jrunc-cp-" + Long.toHexString(ThreadLocalRandom.current().nextLong());
    }

    private static boolean runningAsRoot() {
        try {
            return ((Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid")) == 0;
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }
}
