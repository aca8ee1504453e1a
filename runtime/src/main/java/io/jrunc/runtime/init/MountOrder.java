package io.jrunc.runtime.init;

import io.jrunc.bindings.Errno;
import io.jrunc.bindings.ErrnoException;
import io.jrunc.bindings.FileDescriptors;
import io.jrunc.bindings.MountApi;
import io.jrunc.bindings.Mounts;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Puts procfs in its place and keeps every mount in the config's order (runtime-spec config.md:
 * "mounted in the listed order"), once the container's PID 1 exists.
 *
 * <p>procfs can only be made after the spawn, while every other mount is made before it, each proc
 * entry holding its place with a placeholder tmpfs ({@link RootfsBuilder#prepare}). Putting procfs over
 * the placeholder would not be enough: a mount's ID is given when the mount object is made, and Linux
 * 6.8 and later list mountinfo by that ID, so procfs would be listed last; worse, a mount listed after
 * /proc in the config and made inside the placeholder (lxcfs's bind over /proc/meminfo) would be lost
 * with it. So every mount made after the first placeholder is made again, in the same order: a copy
 * ({@code open_tree(OPEN_TREE_CLONE)}: same filesystem, flags and propagation, a new ID) of each, procfs
 * at each placeholder's turn; then the originals are detached and the new ones attached in order, each
 * at the path its original had. The same order of making and of attaching also gives the config's order
 * on kernels before 6.8, which list mounts in the order they were attached.
 *
 * <p>A config mount is copied through the descriptor taken when it was made, so a later entry with the
 * same destination (which covers it) does not hide it; the mounts a config entry brings with it (an
 * rbind's submounts, the cgroup hierarchies under a v1 /sys/fs/cgroup, /dev/console) are copied by
 * path. The process waiting at the create gate keeps what it holds (the exec gate's descriptor, the
 * pty slave: their filesystems are the same); it enters its working directory only after this, once
 * the creator opens that gate (ChainSpawn).
 */
final class MountOrder {
    /** One line of /proc/PID/mountinfo. */
    record Line(int id, int parent, String mountPoint, String fsType, String source, boolean unbindable) {
        static Line parse(String line) {
            String[] f = line.split(" ");
            int dash = 6;
            while (!f[dash].equals("-")) {
                dash++;
            }
            boolean unbindable = false;
            for (int i = 6; i < dash; i++) {
                unbindable |= f[i].equals("unbindable");
            }
            return new Line(Integer.parseInt(f[0]), Integer.parseInt(f[1]), MountTable.unescape(f[4]), f[dash + 1],
                    MountTable.unescape(f[dash + 2]), unbindable);
        }

        boolean isProcPlaceholder() {
            return fsType.equals("tmpfs") && source.equals(RootfsBuilder.PROC_PLACEHOLDER);
        }
    }

    /** A mount to make again: procfs for proc entry {@code proc}, else a copy (through {@code fd}, or by path when -1). */
    record Step(String path, int proc, int fd, boolean unbindable) {}

    /** An original to detach: the mount at {@code path} and the {@code depth - 1} stacked on it. */
    record Detach(String path, int depth) {}

    private final List<Step> steps;
    private final List<Detach> detaches;

    private MountOrder(List<Step> steps, List<Detach> detaches) {
        this.steps = steps;
        this.detaches = detaches;
    }

    List<Step> steps() {
        return steps;
    }

    List<Detach> detaches() {
        return detaches;
    }

    /**
     * The plan, from the container's mount table as its process sees it (/proc/PID/mountinfo, paths
     * inside its root), in the order the kernel lists it.
     */
    static MountOrder plan(List<String> mountinfo, RootfsBuilder.Prepared prepared) {
        List<Line> lines = new ArrayList<>(mountinfo.size());
        for (String text : mountinfo) {
            if (!text.isBlank()) {
                lines.add(Line.parse(text));
            }
        }
        String firstProc = prepared.procMounts().getFirst().destination();
        int first = -1;
        for (int i = 0; i < lines.size() && first < 0; i++) {
            if (lines.get(i).isProcPlaceholder() && lines.get(i).mountPoint().equals(firstProc)) {
                first = i;
            }
        }
        if (first < 0) {
            throw new IllegalStateException("the container's mount table has no placeholder at " + firstProc);
        }
        List<Line> later = new ArrayList<>();
        for (Line line : lines.subList(first, lines.size())) {
            if (!line.mountPoint().equals(prepared.gatePath())) {
                later.add(line);
            }
        }
        Map<Integer, Line> laterById = new HashMap<>();
        for (Line line : later) {
            laterById.put(line.id(), line);
        }
        Set<Integer> laterIds = laterById.keySet();
        Map<Integer, Line> coveredBy = new HashMap<>();
        for (Line line : later) {
            Line parent = laterById.get(line.parent());
            if (parent != null && parent.mountPoint().equals(line.mountPoint())) {
                coveredBy.put(parent.id(), line);
            }
        }
        Deque<RootfsBuilder.MountHandle> handles = new ArrayDeque<>(prepared.handles());
        List<Step> steps = new ArrayList<>(later.size());
        List<Detach> detaches = new ArrayList<>();
        int proc = 0;
        for (Line line : later) {
            if (line.isProcPlaceholder()) {
                steps.add(new Step(line.mountPoint(), proc++, -1, false));
            } else {
                int fd = -1;
                if (!handles.isEmpty() && handles.peekFirst().destination().equals(line.mountPoint())) {
                    fd = handles.removeFirst().fd();
                }
                steps.add(new Step(line.mountPoint(), -1, fd, line.unbindable()));
            }
            if (!laterIds.contains(line.parent())) {
                int depth = 1;
                for (Line l = coveredBy.get(line.id()); l != null; l = coveredBy.get(l.id())) {
                    depth++;
                }
                detaches.add(new Detach(line.mountPoint(), depth));
            }
        }
        if (proc != prepared.procMounts().size()) {
            throw new IllegalStateException("the container's mount table shows " + proc + " of "
                    + prepared.procMounts().size() + " proc placeholders");
        }
        return new MountOrder(List.copyOf(steps), List.copyOf(detaches));
    }

    /** Whether a later step's path lies below step {@code i}'s. */
    private boolean hasStepsBelow(int i) {
        String top = steps.get(i).path();
        for (int k = i + 1; k < steps.size(); k++) {
            if (below(steps.get(k).path(), top)) {
                return true;
            }
        }
        return false;
    }

    /** Marks the later steps below step {@code i} as copied with it (none of them is procfs: refused). */
    private void skipStepsBelow(int i, boolean[] skipped) {
        String top = steps.get(i).path();
        for (int k = i + 1; k < steps.size(); k++) {
            if (below(steps.get(k).path(), top)) {
                if (steps.get(k).proc() >= 0) {
                    throw new IllegalStateException("procfs at " + steps.get(k).path() + " below " + top
                            + ", a mount with locked submounts, cannot be kept in the config's order");
                }
                skipped[k] = true;
            }
        }
    }

    private static boolean below(String path, String top) {
        return path.startsWith(top.endsWith("/") ? top : top + "/");
    }

    /** How a proc mount is made. */
    @FunctionalInterface
    interface ProcMaker {
        /** A detached procfs for proc entry {@code index}, which {@link #apply} then owns. */
        int make(int index);
    }

    /**
     * Makes the mounts again, detaches the originals and attaches the new ones, on a thread in the
     * container's mount namespace whose root is the container's.
     */
    void apply(ProcMaker procs) {
        int[] made = new int[steps.size()];
        java.util.Arrays.fill(made, -1);
        boolean[] skipped = new boolean[steps.size()];
        try {
            for (int i = 0; i < steps.size(); i++) {
                Step s = steps.get(i);
                if (s.proc() >= 0) {
                    made[i] = procs.make(s.proc());
                    continue;
                }
                if (s.unbindable()) {
                    // an unbindable mount cannot be copied: made private for the copy, unbindable again after
                    Mounts.mount(null, s.path(), null, Mounts.MS_PRIVATE, null);
                }
                if (skipped[i]) {
                    continue;
                }
                try {
                    made[i] = s.fd() >= 0 ? MountApi.cloneMount(s.fd(), null) : MountApi.cloneMount(-1, s.path());
                } catch (ErrnoException e) {
                    if (!e.is(Errno.EINVAL) || !hasStepsBelow(i)) {
                        throw e;
                    }
                    // Inside a user namespace a mount with locked submounts (an rbind of the host's
                    // /sys) is copied only with them: the copy brings the mounts below it, whose own
                    // steps are then left out.
                    made[i] = s.fd() >= 0 ? MountApi.cloneTree(s.fd(), null) : MountApi.cloneTree(-1, s.path());
                    skipStepsBelow(i, skipped);
                }
            }
            for (Detach d : detaches.reversed()) {
                for (int k = 0; k < d.depth(); k++) {
                    Mounts.umount(d.path(), Mounts.MNT_DETACH);
                }
            }
            for (int i = 0; i < steps.size(); i++) {
                Step s = steps.get(i);
                if (skipped[i]) {
                    continue;
                }
                MountApi.moveMount(made[i], s.path());
                if (s.unbindable()) {
                    Mounts.mount(null, s.path(), null, Mounts.MS_UNBINDABLE, null);
                }
            }
        } finally {
            for (int fd : made) {
                if (fd >= 0) {
                    FileDescriptors.closeQuietly(fd);
                }
            }
        }
    }
}
