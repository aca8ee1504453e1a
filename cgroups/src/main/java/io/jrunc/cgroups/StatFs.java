package io.jrunc.cgroups;

import io.jrunc.bindings.ErrnoException;
import java.nio.file.Path;
import java.util.OptionalLong;

/**
 * The filesystem magic of a mount, for the one thing Java file IO cannot tell (runc decides the cgroup
 * mode by comparing {@code f_type} with the cgroup magics). Goes through the bindings' statfs, whose
 * downcall shape every other call shares: a shape of its own would cost create another generated stub.
 */
final class StatFs {
    static final long CGROUP2_SUPER_MAGIC = 0x63677270L; // include/uapi/linux/magic.h
    static final long CGROUP_SUPER_MAGIC = 0x27e0ebL;

    private StatFs() {
    }

    /** The filesystem magic of the filesystem holding {@code path}; empty when statfs fails (e.g. ENOENT). */
    static OptionalLong type(Path path) {
        try {
            return OptionalLong.of(io.jrunc.bindings.StatFs.of(path.toString()).type());
        } catch (ErrnoException e) {
            return OptionalLong.empty();
        }
    }
}
