package io.jrunc.cgroups;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * A container's cgroup in one hierarchy: one directory of cgroupfs and the file operations every
 * hierarchy shares (placing tasks, listing them, removing the directory).
 *
 * @param hierarchyKey the hierarchy ({@code ""} for cgroup v2), see {@link CgroupLocation#directories()}
 * @param path         the cgroup's directory
 * @param required     false where runc only tries (named hierarchies, v2 on a hybrid host)
 */
record CgroupDirectory(String hierarchyKey, Path path, boolean required) {

    static final String PROCS = "cgroup.procs";
    /** cgroup v1 only: writing a thread id here moves that one thread. */
    static final String TASKS = "tasks";

    // runc (opencontainers/cgroups WriteCgroupProc): a task still in TASK_NEW is refused with EINVAL
    // for a moment after clone; it tries 5 times, 30 ms apart.
    private static final int WRITE_ATTEMPTS = 5;
    private static final Duration WRITE_RETRY_DELAY = Duration.ofMillis(30);
    // rmdir of a cgroup whose last task is still exiting fails with EBUSY for a moment.
    private static final int RMDIR_RETRIES = 5;
    private static final Duration RMDIR_FIRST_DELAY = Duration.ofMillis(10);

    boolean isUnified() {
        return hierarchyKey.isEmpty();
    }

    List<String> controllers() {
        return isUnified() ? List.of() : List.of(hierarchyKey.split(","));
    }

    /**
     * Writes one id to a cgroupfs file ({@link #PROCS}: the whole process of that id moves;
     * {@link #TASKS} on v1: only that thread). The file is opened once and the write retried like
     * runc's. Java does not expose errno, so every failed write is retried, not just EINVAL; the
     * other errors cgroup.procs returns (ESRCH, EBUSY, ENOSPC) do not go away by waiting, so they only
     * cost the 120 ms before the error is reported.
     */
    static void writeId(Path directory, String file, long id) throws CgroupException {
        Path target = directory.resolve(file);
        byte[] bytes = Long.toString(id).getBytes(StandardCharsets.US_ASCII);
        try (FileChannel channel = FileChannel.open(target, StandardOpenOption.WRITE)) {
            for (int attempt = 1; ; attempt++) {
                try {
                    channel.write(ByteBuffer.wrap(bytes));
                    return;
                } catch (IOException e) {
                    if (attempt == WRITE_ATTEMPTS) {
                        throw new CgroupException("failed to write " + id + " to " + target + ": " + e.getMessage(), e);
                    }
                    sleep(WRITE_RETRY_DELAY, target);
                }
            }
        } catch (IOException e) {
            throw new CgroupException("failed to write " + id + " to " + target + ": " + reason(e), e);
        }
    }

    /** The ids listed in a cgroupfs file such as cgroup.procs; empty if the cgroup is gone. */
    static List<Long> readIds(Path file) throws CgroupException {
        try {
            List<Long> ids = new ArrayList<>();
            for (String line : Files.readAllLines(file, StandardCharsets.US_ASCII)) {
                if (!line.isBlank()) {
                    ids.add(Long.parseLong(line.trim()));
                }
            }
            return ids;
        } catch (NoSuchFileException e) {
            return List.of();
        } catch (IOException | NumberFormatException e) {
            throw new CgroupException("cannot read " + file + ": " + reason(e), e);
        }
    }

    void addProcess(long pid) throws CgroupException {
        writeId(path, PROCS, pid);
    }

    void addThread(long tid) throws CgroupException {
        if (isUnified()) {
            throw new IllegalStateException("single threads cannot move between cgroup v2 domain cgroups");
        }
        writeId(path, TASKS, tid);
    }

    /**
     * Adds the processes of this cgroup and of every cgroup below it. Threaded v2 cgroups are skipped:
     * their cgroup.procs cannot be read (ENOTSUP) and their processes are listed by the threaded
     * domain above them anyway.
     */
    void collectProcesses(Set<Long> into) throws CgroupException {
        collectProcesses(path, into);
    }

    private static void collectProcesses(Path dir, Set<Long> into) throws CgroupException {
        into.addAll(readIds(dir.resolve(PROCS)));
        for (Path child : subdirectories(dir)) {
            if (!isThreaded(child)) {
                collectProcesses(child, into);
            }
        }
    }

    private static boolean isThreaded(Path dir) {
        try {
            return Files.readString(dir.resolve("cgroup.type")).trim().equals("threaded");
        } catch (IOException e) {
            return false; // v1, or gone
        }
    }

    /**
     * Removes the cgroup and any cgroups below it, children first (as runc's RemovePath). A directory
     * already gone counts as removed. Busy cgroups (a task still exiting) are retried with a doubling
     * delay from 10 ms, 5 times; permission errors are not retried.
     */
    void remove() throws CgroupException {
        removeTree(path);
    }

    static void removeTree(Path dir) throws CgroupException {
        try {
            Files.delete(dir); // the common case: an empty leaf
            return;
        } catch (NoSuchFileException e) {
            return;
        } catch (IOException e) {
            // sub-cgroups or tasks: handled below
        }
        for (Path child : subdirectories(dir)) {
            removeTree(child);
        }
        Duration delay = RMDIR_FIRST_DELAY;
        for (int retry = 0; ; retry++) {
            try {
                Files.delete(dir);
                return;
            } catch (NoSuchFileException e) {
                return;
            } catch (AccessDeniedException e) {
                throw new CgroupException("rmdir " + dir + ": permission denied", e);
            } catch (IOException e) {
                if (retry == RMDIR_RETRIES) {
                    throw new CgroupException("rmdir " + dir + ": " + reason(e), e);
                }
                sleep(delay, dir);
                delay = delay.multipliedBy(2);
            }
        }
    }

    private static List<Path> subdirectories(Path dir) throws CgroupException {
        List<Path> children = new ArrayList<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
            for (Path entry : entries) {
                if (Files.isDirectory(entry, LinkOption.NOFOLLOW_LINKS)) {
                    children.add(entry);
                }
            }
        } catch (NoSuchFileException e) {
            return List.of();
        } catch (IOException e) {
            throw new CgroupException("cannot list " + dir + ": " + reason(e), e);
        }
        return children;
    }

    private static void sleep(Duration delay, Path waitingFor) throws CgroupException {
        try {
            Thread.sleep(delay);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CgroupException("interrupted while retrying " + waitingFor, e);
        }
    }

    /** The errno text of a java.nio failure without the path Java repeats in front of it. */
    static String reason(Exception e) {
        return switch (e) {
            case NoSuchFileException x -> "no such file or directory";
            case AccessDeniedException x -> "permission denied";
            case FileSystemException x when x.getReason() != null -> x.getReason();
            default -> String.valueOf(e.getMessage());
        };
    }
}
