package io.jrunc.cgroups;

import java.nio.file.Path;

/**
 * How resource code touches cgroupfs: the one seam between the write logic and the kernel, so unit
 * tests can record every write in order and make chosen writes fail with a chosen errno (as youki's
 * syscall seam does). {@link KernelCgroupFiles} is the real one.
 *
 * <p>Failures are {@link CgroupException}s whose {@link CgroupException#errno()} is what the kernel
 * returned, and whose message has runc's shape: {@code failed to write "X" to "/sys/fs/cgroup/.../memory.max":
 * invalid argument}.
 */
interface CgroupFiles {

    /** Writes {@code value} to an existing cgroupfs file in one write(2) (never creates the file). */
    void write(Path file, String value) throws CgroupException;

    /** The whole content of a cgroupfs file. */
    String read(Path file) throws CgroupException;

    boolean exists(Path file);

    static CgroupFiles kernel() {
        return KernelCgroupFiles.INSTANCE;
    }
}
