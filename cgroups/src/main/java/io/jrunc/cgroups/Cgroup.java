package io.jrunc.cgroups;

import io.jrunc.bindings.Errno;
import io.jrunc.bindings.ErrnoException;
import io.jrunc.bindings.Processes;
import io.jrunc.bindings.Signals;
import io.jrunc.spec.LinuxResources;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * A container's cgroup: one directory in each cgroup hierarchy the container joins (runc's cgroupfs
 * driver; see docs/cgroups.md). {@link CgroupV1} serves legacy and hybrid hosts, {@link CgroupV2}
 * unified ones; each applies resource limits ({@link #apply}) in its own files.
 *
 * <p>Life cycle as the runtime uses it: {@link #create} at container create, {@link #location()}
 * into the state file, {@link #placeForChildren} (or {@link #addProcess}) to get the container's
 * process into it before it execs; later commands {@link #open} the saved location;
 * {@link #destroy} at delete, once the processes are gone. In between: {@link #apply} (create and
 * update), {@link #freeze}/{@link #thaw} (pause/resume), {@link #killAll} (kill --all, delete --force),
 * {@link #stats} and {@link #oomEvents} (events).
 */
public abstract sealed class Cgroup permits CgroupV1, CgroupV2 {

    /**
     * The hierarchies as {@link #create} found them, reused when the creating thread is placed (reading
     * mountinfo and /proc/self/cgroup again cost create ~3 ms); null for a cgroup opened from a saved
     * location, which looks them up when it needs them.
     */
    private CgroupHierarchies createdIn;

    /**
     * Rootless (runc's rootless cgroup manager): device rules that cannot be written are ignored, and
     * a limit whose hierarchy the container did not get is refused with the reason ({@link #rootless}).
     */
    boolean rootless;

    /** Why a hierarchy was left out at a rootless create (the first such failure), or null. */
    String leftOutBecause;

    private final CgroupLocation location;
    final List<CgroupDirectory> directories;
    final CgroupFiles files;

    Cgroup(CgroupLocation location, CgroupFiles files) {
        this.location = location;
        this.files = files;
        List<CgroupDirectory> dirs = new ArrayList<>();
        for (Map.Entry<String, String> entry : location.directories().entrySet()) {
            dirs.add(new CgroupDirectory(entry.getKey(), Path.of(entry.getValue()),
                    Hierarchy.isRequired(location.mode(), entry.getKey())));
        }
        this.directories = List.copyOf(dirs);
    }

    /**
     * Creates (or joins, if it exists and is empty) the cgroup of a container in every hierarchy of
     * this host, resolving {@code path} as runc's cgroupfs driver does.
     *
     * @throws CgroupException if a required directory cannot be made (nothing this call made is
     *                         left behind), or the cgroup already has processes (runc: "container's
     *                         cgroup is not empty")
     */
    public static Cgroup create(CgroupsPath path) throws CgroupException {
        return create(path, CgroupHierarchies.current(), location -> { });
    }

    /**
     * As {@link #create(CgroupsPath)}, telling {@code beforeMaking} where the cgroup will be before any
     * directory is made: create records it, so that a create killed halfway can be undone by delete.
     */
    public static Cgroup create(CgroupsPath path, java.util.function.Consumer<CgroupLocation> beforeMaking)
            throws CgroupException {
        return create(path, CgroupHierarchies.current(), beforeMaking);
    }

    /**
     * As {@link #create(CgroupsPath, java.util.function.Consumer)} for a rootless container, with runc's
     * rootless rules: the host's cgroup v1 hierarchies are not touched (only root may write them, and
     * they are never delegated to a user); a cgroup v2 directory is made where the user may write (a
     * delegated subtree). When it cannot be, and the config gave no cgroupsPath ({@code pathGiven}
     * false), the container goes without it: permission errors are ignored as runc ignores them, and
     * {@link #apply} refuses any limit that would need it, saying why. A cgroupsPath the user cannot
     * write fails as it does for root.
     */
    public static Cgroup createRootless(CgroupsPath path, boolean pathGiven,
            java.util.function.Consumer<CgroupLocation> beforeMaking) throws CgroupException {
        return createRootless(path, pathGiven, CgroupHierarchies.current(), beforeMaking);
    }

    static Cgroup createRootless(CgroupsPath path, boolean pathGiven, CgroupHierarchies hierarchies,
            java.util.function.Consumer<CgroupLocation> beforeMaking) throws CgroupException {
        return create(path, hierarchies, beforeMaking, true, pathGiven);
    }

    /** runc's isIgnorableError: EPERM, EACCES or EROFS, from a write or from Java's mkdir. */
    static boolean isPermissionError(CgroupException e) {
        if (e.errno() == Errno.EPERM || e.errno() == Errno.EACCES || e.errno() == Errno.EROFS) {
            return true;
        }
        if (e.getCause() instanceof java.nio.file.AccessDeniedException) {
            return true;
        }
        return e.getCause() instanceof java.nio.file.FileSystemException f && f.getReason() != null
                && (f.getReason().equals("Read-only file system") || f.getReason().equals("Operation not permitted"));
    }

    private static final String V1_LEFT_OUT =
            "jrunc does not use the host's cgroup v1 hierarchies for a rootless container, since only root may write them";

    /**
     * Marks a cgroup opened from a saved location as a rootless container's, for {@link #apply}
     * (update): device rules that cannot be written are then ignored, as at create.
     */
    public final Cgroup asRootless() {
        rootless = true;
        return this;
    }

    static Cgroup create(CgroupsPath path, CgroupHierarchies hierarchies) throws CgroupException {
        return create(path, hierarchies, location -> { });
    }

    private static Cgroup create(CgroupsPath path, CgroupHierarchies hierarchies,
            java.util.function.Consumer<CgroupLocation> beforeMaking) throws CgroupException {
        return create(path, hierarchies, beforeMaking, false, true);
    }

    /**
     * Makes (or joins) the directories; with {@code rootless}, by {@link #createRootless}'s rules
     * ({@code pathGiven}: the config named a cgroupsPath).
     */
    private static Cgroup create(CgroupsPath path, CgroupHierarchies hierarchies,
            java.util.function.Consumer<CgroupLocation> beforeMaking, boolean rootless, boolean pathGiven)
            throws CgroupException {
        CgroupLocation resolved = path.resolve(hierarchies);
        beforeMaking.accept(resolved);
        CgroupDirectoryBuilder builder = new CgroupDirectoryBuilder();
        String leftOut = null;
        try {
            Map<String, Path> made = new LinkedHashMap<>();
            for (Hierarchy hierarchy : hierarchies.hierarchies()) {
                if (rootless && !hierarchy.isUnified()) {
                    leftOut = V1_LEFT_OUT; // the reason a v1 limit is refused, ahead of any v2 failure
                    continue;
                }
                Path directory = resolved.directory(hierarchy.key());
                try {
                    builder.build(hierarchy, directory, hierarchies.mode() == CgroupMode.UNIFIED);
                    made.put(hierarchy.key(), directory);
                } catch (CgroupException e) {
                    // runc joins named hierarchies and hybrid's v2 "if it can", and a rootless container
                    // without a cgroupsPath whatever its user may not write: leave this one out
                    boolean leaveOut = !hierarchy.required() || (rootless && !pathGiven && isPermissionError(e));
                    if (!leaveOut) {
                        throw e;
                    }
                    if (rootless && leftOut == null) {
                        leftOut = e.getMessage();
                    }
                }
            }
            Cgroup cgroup = open(CgroupLocation.of(hierarchies.mode(), made));
            cgroup.createdIn = hierarchies;
            cgroup.rootless = rootless;
            cgroup.leftOutBecause = leftOut;
            // Only a cgroup that was there already can hold processes: reading every cgroup.procs and
            // listing every directory of a new one cost create ~5 ms for nothing.
            Map<String, Path> joined = new LinkedHashMap<>();
            made.forEach((key, directory) -> {
                if (!builder.made(directory)) {
                    joined.put(key, directory);
                }
            });
            int processes = joined.isEmpty() ? 0 : open(CgroupLocation.of(hierarchies.mode(), joined)).processes().size();
            if (processes != 0) {
                throw new CgroupException("container's cgroup is not empty: " + processes + " process(es) found");
            }
            return cgroup;
        } catch (CgroupException | RuntimeException e) {
            builder.undo();
            throw e;
        }
    }

    /** The cgroup at a saved location. Touches nothing; operations fail if it is gone. */
    public static Cgroup open(CgroupLocation location) {
        return open(location, CgroupFiles.kernel());
    }

    /** As {@link #open(CgroupLocation)}, with the file operations of resource code replaced (tests). */
    static Cgroup open(CgroupLocation location, CgroupFiles files) {
        return switch (location.mode()) {
            case UNIFIED -> new CgroupV2(location, files);
            case HYBRID, LEGACY -> new CgroupV1(location, files);
        };
    }

    public final CgroupLocation location() {
        return location;
    }

    public final CgroupMode mode() {
        return location.mode();
    }

    /**
     * Moves a whole process into the cgroup in every hierarchy (cgroup.procs), retrying while the
     * kernel still refuses a just-cloned task, as runc does. Failures in best-effort hierarchies are
     * ignored, as runc ignores them.
     */
    public final void addProcess(long pid) throws CgroupException {
        for (CgroupDirectory directory : directories) {
            try {
                directory.addProcess(pid);
            } catch (CgroupException e) {
                if (directory.required()) {
                    throw e;
                }
            }
        }
    }

    /**
     * Places thread {@code tid} of this JVM so that the children it spawns, and a cgroup namespace it
     * creates, start in this cgroup; close the result to move back. See {@link ChildPlacement} for
     * what moves (v1: the thread; v2: the whole process) and from which thread to close it.
     */
    public final ChildPlacement placeForChildren(long tid) throws CgroupException {
        return ChildPlacement.place(directories, tid, createdIn);
    }

    /**
     * The first half of {@link #placeForChildren}, for a caller with other work to do meanwhile: the
     * whole-process (v2) move starts on a helper thread; the spawning thread finishes the placement
     * with {@link ChildPlacement#placeThread}. Close it in every case.
     */
    public final ChildPlacement beginPlacement() throws CgroupException {
        return ChildPlacement.begin(directories, createdIn);
    }

    /**
     * Whether {@link #placeForChildren} has to move the whole JVM (a cgroup v2 hierarchy is part of
     * this cgroup: unified and hybrid hosts) rather than one thread.
     */
    public final boolean placementMovesWholeProcess() {
        return directories.stream().anyMatch(CgroupDirectory::isUnified);
    }

    /**
     * The processes in this cgroup or any cgroup below it, in any of its hierarchies, sorted. The
     * union matters while a process is being placed (it is in some hierarchies and not yet in others),
     * and below-it matters because a container may make cgroups of its own.
     */
    public final List<Long> processes() throws CgroupException {
        TreeSet<Long> pids = new TreeSet<>();
        for (CgroupDirectory directory : directories) {
            directory.collectProcesses(pids);
        }
        return List.copyOf(pids);
    }

    public final boolean isEmpty() throws CgroupException {
        return processes().isEmpty();
    }

    /**
     * Removes the cgroup in every hierarchy with one rmdir each, if that is all it takes: no process
     * and no cgroup below it anywhere, the common case when a stopped container is deleted. False when
     * any directory stayed (the others may be gone): then {@link #processes} and {@link #destroy} do
     * the thorough job. Cheaper than asking {@link #isEmpty} first, which reads every cgroup.procs
     * and lists every directory of every hierarchy.
     */
    public final boolean removeIfEmpty() {
        boolean all = true;
        for (CgroupDirectory directory : directories) {
            try {
                Files.deleteIfExists(directory.path());
            } catch (IOException e) {
                all = false; // busy: processes, or cgroups below
            }
        }
        return all;
    }

    /**
     * Removes the cgroup from every hierarchy, cgroups below it first. Directories already gone are
     * fine, so destroy can be repeated after a partial failure. While processes remain, the kernel
     * refuses (EBUSY); after the retries this fails, naming every directory that is still there.
     * Ancestors made by {@link #create} stay, as in runc (other containers may share them).
     */
    public final void destroy() throws CgroupException {
        CgroupException failure = null;
        for (CgroupDirectory directory : directories) {
            try {
                directory.remove();
            } catch (CgroupException e) {
                if (failure == null) {
                    failure = new CgroupException("failed to remove cgroup " + location.directories().values() + ": " + e.getMessage(), e);
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    /**
     * Writes the limits of {@code resources} (create, and update with the merged resources) in runc's
     * order. Absent values leave their files alone. Device rules go to devices.deny/devices.allow on
     * v1, and on a unified host become a BPF device program attached to the cgroup
     * ({@link BpfDeviceFilter}). The first failure stops and is thrown; earlier writes stay.
     */
    public final void apply(LinuxResources resources) throws CgroupException {
        apply(resources, BpfDeviceFilter.INSTANCE);
    }

    /**
     * As {@link #apply(LinuxResources)}, with cgroup v2 device rules installed by {@code v2Devices}
     * (ignored on v1, where the devices controller enforces them).
     */
    public abstract void apply(LinuxResources resources, CgroupV2DeviceFilter v2Devices) throws CgroupException;

    /**
     * Freezes every process of the cgroup and waits until the kernel says all are frozen (runc's
     * pause). Do not call while a {@link #placeForChildren} placement is open: the JVM (v2) or its
     * thread (v1) would be frozen too.
     */
    public final void freeze() throws CgroupException {
        freezer().freeze();
    }

    /** Lets the processes run again (runc's resume). */
    public final void thaw() throws CgroupException {
        freezer().thaw();
    }

    /** Whether this cgroup itself is frozen (runc's "paused"); a frozen ancestor does not count on v1. */
    public final boolean isFrozen() throws CgroupException {
        return freezer().isFrozen();
    }

    abstract Freezer freezer() throws CgroupException;

    /**
     * Sends {@code signal} to every process in the cgroup (runc's {@code signalAllProcesses}). SIGKILL
     * uses cgroup.kill where the cgroup has a v2 directory that offers it (kernel 5.14+; the kernel
     * kills every process, new ones included); on a unified host that is all. Otherwise, and on hybrid
     * hosts for the v1 hierarchies as well, the cgroup is frozen so that the list of processes is
     * stable, each is signalled, and the cgroup is thawed (frozen processes act on the signal when
     * thawed). Without a freezer the processes are signalled unfrozen. Processes that are already gone
     * are skipped; this JVM is never signalled. Not while a placement is open (see {@link #freeze}).
     */
    public final void killAll(int signal) throws CgroupException {
        if (signal == Signals.SIGKILL) {
            Path unified = location.directory("");
            if (unified != null && files.exists(unified.resolve("cgroup.kill"))) {
                files.write(unified.resolve("cgroup.kill"), "1");
                if (mode() == CgroupMode.UNIFIED) {
                    return;
                }
            }
        }
        boolean frozen = false;
        try {
            freeze();
            frozen = true;
        } catch (CgroupException e) {
            // runc warns and signals anyway: a list that may miss a just-forked child beats no signal
        }
        try {
            long self = io.jrunc.bindings.Processes.getpid();
            for (long pid : processes()) {
                if (pid == self) {
                    continue;
                }
                try {
                    Processes.kill((int) pid, signal);
                } catch (ErrnoException e) {
                    if (!e.is(Errno.ESRCH)) {
                        throw new CgroupException("kill " + pid + ": " + Errno.describe(e.errno()), e.errno(), e);
                    }
                }
            }
        } finally {
            if (frozen) {
                thaw();
            }
        }
    }

    /** The cgroup's counters now, shaped like runc's events --stats data. */
    public abstract CgroupStats stats() throws CgroupException;

    /** The OOM counters, for the events command to watch (a rise is an OOM event). */
    public abstract OomEvents oomEvents() throws CgroupException;

    /**
     * A descriptor the kernel flags when the OOM counters may have risen, to wait on instead of
     * reading {@link #oomEvents} on a clock; empty when the cgroup has no memory controller. The
     * caller closes it.
     */
    public abstract java.util.Optional<OomNotifier> oomNotifier() throws CgroupException;

    @Override
    public String toString() {
        return getClass().getSimpleName() + location.directories();
    }
}
