package io.jrunc.cgroups;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Semaphore;
import java.util.function.Function;

/**
 * A thread of this JVM placed so that the children it spawns are born in a container's cgroup, and
 * so that a cgroup namespace it creates has the container's cgroup as its root. {@link #close()}
 * puts everything back where it was.
 *
 * <p>Why a thread: the JVM spawns container processes from a dedicated platform thread
 * (docs/cgroups.md, docs/runtime.md). A child is born in the cgroups of the thread
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

    private final List<CgroupDirectory> directories;
    private final CgroupHierarchies hierarchies;
    private final long pid;
    private final boolean movesWholeProcess;
    private final List<Return> returns = new ArrayList<>();
    private long tid = -1;
    private boolean closed;

    /** Whether a whole-process (v2) move was made or is under way and not yet recorded. */
    private boolean processMovePending;
    /** The helper thread making it, or null when it was made on the calling thread. */
    private Thread processMove;
    private volatile CgroupException processMoveFailure;
    private Return processReturn;
    private boolean processMoveRequired;

    private ChildPlacement(List<CgroupDirectory> directories, CgroupHierarchies hierarchies, long pid,
            boolean movesWholeProcess) {
        this.directories = directories;
        this.hierarchies = hierarchies;
        this.pid = pid;
        this.movesWholeProcess = movesWholeProcess;
    }

    /**
     * {@link #begin} and {@link #placeThread} at once, all on the calling thread: no helper thread may
     * be started here, since the caller may be a spawning thread that unshared its filesystem context,
     * and a thread it creates would share that context again (setns into a mount namespace then fails
     * with EINVAL while the helper lives; exec's spawning thread did exactly that).
     */
    static ChildPlacement place(List<CgroupDirectory> directories, long tid, CgroupHierarchies known)
            throws CgroupException {
        ChildPlacement placement = begin(directories, known, false);
        placement.placeThread(tid);
        return placement;
    }

    /**
     * Starts the whole-process (v2) part of a placement, on a helper thread: the first move of a
     * process between cgroups waits for an RCU grace period (the kernel's threadgroup lock), about
     * 10 ms, which the caller spends on other work meanwhile. {@link #placeThread} completes the
     * placement; {@link #close} undoes whatever was done, waiting for the move first.
     *
     * @param known the hierarchies as the cgroup's creation found them, or null to look them up
     */
    static ChildPlacement begin(List<CgroupDirectory> directories, CgroupHierarchies known) throws CgroupException {
        return begin(directories, known, true);
    }

    private static ChildPlacement begin(List<CgroupDirectory> directories, CgroupHierarchies known, boolean helper)
            throws CgroupException {
        long pid = io.jrunc.bindings.Processes.getpid(); // not ProcessHandle: its class initialization starts a thread pool
        CgroupHierarchies hierarchies = known != null ? known : CgroupHierarchies.current();
        CgroupDirectory unified = null;
        for (CgroupDirectory directory : directories) {
            if (directory.isUnified()) {
                unified = directory;
            }
        }
        Return processReturn = null;
        if (unified != null) {
            // Serialized before the process's cgroup is read: a JVM that creates containers
            // concurrently (the guest agent) is in another create's container cgroup until that one
            // closes, and returning there would strand it in a cgroup about to be removed.
            WHOLE_PROCESS_MOVES.acquireUninterruptibly();
            try {
                // Where the process is now, computed before anything moves.
                Map<String, String> processCgroups = memberships(Path.of("/proc/self/cgroup"));
                processReturn = new Return(originalDirectory(unified, hierarchies, processCgroups::get),
                        CgroupDirectory.PROCS, pid);
            } catch (CgroupException | RuntimeException e) {
                WHOLE_PROCESS_MOVES.release();
                if (unified.required() || !(e instanceof CgroupException)) {
                    throw e;
                }
                unified = null; // best effort (a hybrid host's v2 hierarchy): left out, as runc does
            }
        }
        ChildPlacement placement = new ChildPlacement(directories, hierarchies, pid, unified != null);
        if (unified == null) {
            return placement;
        }
        placement.processReturn = processReturn;
        placement.processMoveRequired = unified.required();
        Path target = unified.path();
        Runnable move = () -> {
            try {
                CgroupDirectory.writeId(target, CgroupDirectory.PROCS, pid);
            } catch (CgroupException e) {
                placement.processMoveFailure = e;
            }
        };
        placement.processMovePending = true;
        if (helper) {
            placement.processMove = Thread.ofPlatform().name("jrunc-cgroup-move").daemon(true).start(move);
        } else {
            move.run();
        }
        return placement;
    }

    /**
     * Moves the thread {@code tid} into the cgroup in every v1 hierarchy, then waits for the process
     * move {@link #begin} started: when this returns, a child the thread creates is born in the
     * container's cgroup everywhere. On failure everything done so far is undone.
     */
    public void placeThread(long tid) throws CgroupException {
        Path task = Path.of("/proc/self/task/" + tid);
        try {
            if (!Files.isDirectory(task)) {
                throw new CgroupException("thread " + tid + " is not a thread of this process (pid " + pid + ")");
            }
            synchronized (this) {
                this.tid = tid;
            }
            // Where the thread is now, as directories: computed before anything moves, so a thread
            // whose cgroup cannot be expressed as a directory fails without side effects.
            Map<String, String> threadCgroups = memberships(task.resolve("cgroup"));
            for (CgroupDirectory directory : directories) {
                if (directory.isUnified()) {
                    continue;
                }
                try {
                    Path original = originalDirectory(directory, hierarchies, threadCgroups::get);
                    CgroupDirectory.writeId(directory.path(), CgroupDirectory.TASKS, tid);
                    synchronized (this) {
                        returns.add(new Return(original, CgroupDirectory.TASKS, tid));
                    }
                } catch (CgroupException e) {
                    if (directory.required()) {
                        throw e;
                    }
                }
            }
            finishProcessMove();
        } catch (CgroupException | RuntimeException e) {
            closeQuietly(e);
            throw e;
        }
    }

    private static Map<String, String> memberships(Path procCgroupFile) throws CgroupException {
        Map<String, String> byKey = new java.util.HashMap<>();
        for (CgroupMembership m : CgroupMembership.read(procCgroupFile)) {
            byKey.putIfAbsent(m.hierarchyKey(), m.path());
        }
        return byKey;
    }

    /** Waits for the process move, if one is under way, and records its undo; rethrows a required failure. */
    private void finishProcessMove() throws CgroupException {
        Thread move;
        synchronized (this) {
            if (!processMovePending) {
                return;
            }
            move = processMove;
        }
        if (move != null) {
            boolean interrupted = false;
            while (true) {
                try {
                    move.join();
                    break;
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
        CgroupException failure;
        synchronized (this) {
            if (!processMovePending) {
                return; // another thread recorded it meanwhile
            }
            processMovePending = false;
            processMove = null;
            failure = processMoveFailure;
            if (failure == null) {
                returns.add(processReturn);
            }
        }
        if (failure != null && processMoveRequired) {
            throw failure;
        }
    }

    private void closeQuietly(Exception cause) {
        try {
            close();
        } catch (CgroupException undoFailure) {
            cause.addSuppressed(undoFailure);
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
    public void close() throws CgroupException {
        try {
            finishProcessMove();
        } catch (CgroupException e) {
            // nothing moved: nothing to undo for it
        }
        undoAll();
    }

    private synchronized void undoAll() throws CgroupException {
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
                            && (tid < 0 || !Files.exists(Path.of("/proc/self/task/" + tid)));
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
