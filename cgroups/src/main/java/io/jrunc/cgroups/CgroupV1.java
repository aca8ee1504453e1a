package io.jrunc.cgroups;

/**
 * A container's cgroup on a cgroup v1 host ({@link CgroupMode#LEGACY}) or a hybrid one
 * ({@link CgroupMode#HYBRID}): one directory per v1 hierarchy, and on hybrid hosts also one in the
 * v2 hierarchy, which runc joins but sets nothing in. Resource limits (a later change) go to the v1
 * controller files.
 */
public final class CgroupV1 extends Cgroup {

    CgroupV1(CgroupLocation location) {
        super(location);
    }

    /**
     * Moves one thread (not its whole process) into this cgroup in every v1 hierarchy, through the
     * {@code tasks} file. The v2 hierarchy of a hybrid host is left alone: there a single thread
     * cannot move; use {@link #placeForChildren} to cover it as well.
     */
    public void addThread(long tid) throws CgroupException {
        for (CgroupDirectory directory : directories) {
            if (directory.isUnified()) {
                continue;
            }
            try {
                directory.addThread(tid);
            } catch (CgroupException e) {
                if (directory.required()) {
                    throw e;
                }
            }
        }
    }
}
