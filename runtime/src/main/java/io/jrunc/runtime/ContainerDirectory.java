package io.jrunc.runtime;

import io.jrunc.bindings.FileTrees;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * ROOT/ID: a container's state directory. Creating it is the atomic step that decides which of two
 * concurrent creates of one ID wins (mkdir either succeeds or fails with EEXIST). Every command that
 * changes a container holds an exclusive lock on ROOT/ID/lock while it works. Within one JVM (a
 * long-lived caller such as the containerd shim, where calls for one container arrive on several
 * threads at once) the holders also queue on an in-process lock first: a second {@code FileChannel.lock}
 * on the same file from the same JVM does not wait, it throws OverlappingFileLockException.
 */
public final class ContainerDirectory implements AutoCloseable {
    public static final Path DEFAULT_ROOT = Path.of("/run/jrunc");

    private final Path dir;
    private FileChannel lockChannel;
    private FileLock lock;
    private InProcessLock inProcess;

    /** The in-process half of a directory's lock, shared by the JVM's holders and waiters, then dropped. */
    private static final class InProcessLock {
        final java.util.concurrent.Semaphore permit = new java.util.concurrent.Semaphore(1);
        int users;
    }

    private static final java.util.Map<Path, InProcessLock> IN_PROCESS = new java.util.HashMap<>();

    private ContainerDirectory(Path dir) {
        this.dir = dir;
    }

    /** Creates ROOT/ID exclusively (and ROOT if needed) and locks it. */
    public static ContainerDirectory create(Path root, String id) {
        try {
            Files.createDirectories(root);
            Path dir = root.resolve(id);
            Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx--x--x")));
            ContainerDirectory d = new ContainerDirectory(dir);
            d.lock();
            return d;
        } catch (FileAlreadyExistsException e) {
            throw ContainerException.exists();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Opens and locks ROOT/ID of an existing container. */
    public static ContainerDirectory open(Path root, String id) {
        Path dir = root.resolve(id);
        if (!Files.isRegularFile(dir.resolve("state.json"))) {
            throw ContainerException.notExists();
        }
        ContainerDirectory d = new ContainerDirectory(dir);
        d.lock();
        if (!Files.isRegularFile(dir.resolve("state.json"))) {
            d.close(); // deleted while we waited for the lock
            throw ContainerException.notExists();
        }
        return d;
    }

    private void lock() {
        synchronized (IN_PROCESS) {
            inProcess = IN_PROCESS.computeIfAbsent(dir, d -> new InProcessLock());
            inProcess.users++;
        }
        inProcess.permit.acquireUninterruptibly();
        try {
            lockChannel = FileChannel.open(dir.resolve("lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
            lock = lockChannel.lock();
        } catch (NoSuchFileException e) {
            releaseInProcess();
            throw ContainerException.notExists();
        } catch (IOException | RuntimeException e) {
            releaseInProcess();
            throw e instanceof IOException io ? new UncheckedIOException(io) : (RuntimeException) e;
        }
    }

    private void releaseInProcess() {
        InProcessLock held = inProcess;
        if (held == null) {
            return;
        }
        inProcess = null;
        held.permit.release();
        synchronized (IN_PROCESS) {
            if (--held.users == 0) {
                IN_PROCESS.remove(dir, held);
            }
        }
    }

    public Path path() {
        return dir;
    }

    public Path execFifo() {
        return dir.resolve("exec.fifo");
    }

    public ContainerState read() {
        try {
            return ContainerState.fromJson(Files.readAllBytes(dir.resolve("state.json")));
        } catch (NoSuchFileException e) {
            throw ContainerException.notExists();
        } catch (IOException e) {
            throw new UncheckedIOException("reading state of " + dir.getFileName(), e);
        }
    }

    /** Writes state.json atomically (temporary file and rename), so readers never see half a file. */
    public void write(ContainerState state) {
        Path tmp = dir.resolve(".state.json.tmp");
        try {
            Files.write(tmp, state.toJson());
            try {
                Files.move(tmp, dir.resolve("state.json"), StandardCopyOption.ATOMIC_MOVE);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(tmp, dir.resolve("state.json"), StandardCopyOption.REPLACE_EXISTING);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("writing state of " + dir.getFileName(), e);
        }
    }

    /** The config the container was created from, kept verbatim. */
    public Path config() {
        return dir.resolve("config.json");
    }

    /**
     * Removes ROOT/ID of a container that has no state.json, after undoing what a create killed halfway
     * recorded there ({@link CreateJournal}). Waits for the directory's lock first, so a create that is
     * still running is not pulled apart: false when it finished meanwhile (state.json exists now).
     */
    public static boolean removeHalfCreated(Path root, String id) {
        Path dir = root.resolve(id);
        if (!Files.isDirectory(dir)) {
            return true;
        }
        ContainerDirectory d = new ContainerDirectory(dir);
        try {
            d.lock();
        } catch (ContainerException gone) {
            return true;
        }
        try {
            if (Files.isRegularFile(dir.resolve("state.json"))) {
                return false;
            }
            CreateJournal.undo(dir);
            d.remove();
            return true;
        } catch (io.jrunc.cgroups.CgroupException e) {
            throw new ContainerException("removing what a killed create left: " + e.getMessage(), e);
        } finally {
            d.close();
        }
    }

    /** Removes the whole directory (without following links: FileTrees). */
    public void remove() {
        try {
            FileTrees.delete(dir);
        } catch (IOException e) {
            throw new UncheckedIOException("removing " + dir, e);
        }
    }

    @Override
    public void close() {
        try {
            if (lock != null && lock.isValid()) {
                lock.release();
            }
            if (lockChannel != null) {
                lockChannel.close();
            }
        } catch (IOException ignored) {
            // the lock goes with the descriptor anyway
        } finally {
            releaseInProcess();
        }
    }
}
