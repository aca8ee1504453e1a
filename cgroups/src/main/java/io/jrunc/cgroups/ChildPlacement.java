package io.jrunc.cgroups;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Semaphore;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * A thread of this JVM placed so that the children it spawns are born in a container's cgroup, and
 * so that a cgroup namespace it creates has the container's cgroup as its root. {@link #close()}
 * puts everything back where it was.
 *
 * <p>Why a thread: the JVM spawns container processes from a dedicated platform thread
 * (docs/cgroups.md, shared/design/process-model.md). A child is born in the cgroups of the thread
 * that creates it, and {@code unshare(CLONE_NEWCGROUP)} makes the calling thread's current cgroups
 * the root of the new namespace. So the thread must be in the container's cgroup before it unshares
 * and spawns; placing the child after it was born would leave its cgroup namespace rooted at the
 * runtime's cgroup (the container would see {@code /../../container} paths).
 *
 * <p>How, per hierarchy:
 * <ul>
 *   <li>cgroup v1: the thread alone moves (its id written to {@code tasks}); the rest of the JVM
 *       stays where it is.</li>
 *   <li>cgroup v2: a single thread cannot leave its process's cgroup unless the cgroups are threaded,
 *       and a container's cgroup is a domain cgroup. So the whole JVM process moves (its pid written
 *       to {@code cgroup.procs}) and moves back on close. While it is there the JVM's threads count
 *       against the container's pids and its allocations are charged to the container's memory (v2
 *       does not move charges back), so keep the window short and place before resource limits
 *       are applied. Because the whole process can be in only one cgroup at a time, placements that
 *       move the process are serialized: a second one waits until the first is closed.</li>
 * </ul>
 * On a hybrid host both happen: the thread moves in the v1 hierarchies, the process in the v2 one.
 *
 * <p>Close from a thread that is still in the original cgroup namespace (not the thread that
 * unshared): on cgroup v2 the kernel only lets a writer move a process between cgroups that are both
 * inside the writer's cgroup namespace, and the container's namespace does not contain the original
 * cgroup. posix_spawn keeps the spawning thread blocked until the child execs anyway, so the natural
 * order is: learn the child's pid from another thread, then close.
 */
public final class ChildPlacement implements AutoCloseable {

    private static final Semaphore WHOLE_PROCESS_MOVES = new Semaphore(1);

    /** One write that undoes one move: {@code id} back into {@code file} of {@code directory}. */
    private record Return(Path directory, String file, long id) {
    }

    private final long tid;
    private final boolean movesWholeProcess;
    private final List<Return> returns;
    private boolean closed;

    private ChildPlacement(long tid, boolean movesWholeProcess, List<Return> returns) {
        this.tid = tid;
        this.movesWholeProcess = movesWholeProcess;
        this.returns = returns;
    }

    /** @param known the hierarchies as the cgroup's creation found them, or null to look them up */
    static ChildPlacement place(List<CgroupDirectory> directories, long tid, CgroupHierarchies known)
            throws CgroupException {
        long pid = io.jrunc.bindings.Processes.getpid(); // not ProcessHandle: its class initialization starts a thread pool
        Path task = Path.of("/proc/self/task/" + tid);
        if (!Files.isDirectory(task)) {
            throw new CgroupException("thread " + tid + " is not a thread of this process (pid " + pid + ")");
        }
        boolean wholeProcess = directories.stream().anyMatch(CgroupDirectory::isUnified);
        if (wholeProcess) {
            WHOLE_PROCESS_MOVES.acquireUninterruptibly();
        }
        List<Return> done = new ArrayList<>();
        ChildPlacement placement = new ChildPlacement(tid, wholeProcess, done);
        try {
            // Where the thread is now, as directories: computed before anything moves, so a thread
            // whose cgroup cannot be expressed as a directory fails without side effects.
            CgroupHierarchies hierarchies = known != null ? known : CgroupHierarchies.current();
            Map<String, String> threadCgroups = CgroupMembership.read(task.resolve("cgroup")).stream()
                    .collect(Collectors.toMap(CgroupMembership::hierarchyKey, CgroupMembership::path, (a, b) -> a));
            for (CgroupDirectory directory : directories) {
                String file = directory.isUnified() ? CgroupDirectory.PROCS : CgroupDirectory.TASKS;
                long id = directory.isUnified() ? pid : tid;
                try {
                    Path original = originalDirectory(directory, hierarchies, threadCgroups::get);
                    CgroupDirectory.writeId(directory.path(), file, id);
                    done.add(new Return(original, file, id));
                } catch (CgroupException e) {
                    if (directory.required()) {
                        throw e;
                    }
                }
            }
            return placement;
        } catch (CgroupException | RuntimeException e) {
            try {
                placement.close();
            } catch (CgroupException undoFailure) {
                e.addSuppressed(undoFailure);
            }
            throw e;
        }
    }

    private static Path originalDirectory(CgroupDirectory directory, CgroupHierarchies hierarchies,
                                          Function<String, String> threadCgroupOf) throws CgroupException {
        Hierarchy hierarchy = hierarchies.byKey(directory.hierarchyKey()).orElseThrow(() -> new CgroupException(
                "hierarchy " + directory.hierarchyKey() + " of " + directory.path() + " is not mounted here"));
        String cgroup = threadCgroupOf.apply(directory.hierarchyKey());
        if (cgroup == null) {
            throw new CgroupException("/proc/self/task/<tid>/cgroup has no entry for hierarchy " + hierarchy.describe());
        }
        return hierarchy.directoryOf(cgroup);
    }

    /** Whether this placement moved the whole JVM process (there is a cgroup v2 hierarchy). */
    public boolean movesWholeProcess() {
        return movesWholeProcess;
    }

    /**
     * Moves the thread (v1) and the process (v2) back to where they were. Idempotent. A thread that
     * has ended meanwhile needs no moving back. Every move is attempted even when one fails.
     */
    @Override
    public synchronized void close() throws CgroupException {
        if (closed) {
            return;
        }
        closed = true;
        CgroupException failure = null;
        try {
            for (Return back : returns.reversed()) {
                try {
                    CgroupDirectory.writeId(back.directory(), back.file(), back.id());
                } catch (CgroupException e) {
                    boolean threadEnded = back.file().equals(CgroupDirectory.TASKS)
                            && !Files.exists(Path.of("/proc/self/task/" + tid));
                    if (threadEnded) {
                        continue;
                    }
                    if (failure == null) {
                        failure = e;
                    } else {
                        failure.addSuppressed(e);
                    }
                }
            }
        } finally {
            if (movesWholeProcess) {
                WHOLE_PROCESS_MOVES.release();
            }
        }
        if (failure != null) {
            throw failure;
        }
    }
}
