package io.jrunc.cgroups;

/**
 * Every failure of this module: a cgroupsPath that cannot be used, a hierarchy that is not mounted, a
 * cgroupfs file that could not be read or written, a cgroup that would not go away, a resource value
 * that cannot be converted. The message is meant to be printed as is by the runtime (runc prints its
 * cgroup errors the same way: one line, the file or path that failed, then the reason).
 */
public final class CgroupException extends Exception {
    private final int errno;

    public CgroupException(String message) {
        this(message, 0, null);
    }

    public CgroupException(String message, Throwable cause) {
        this(message, 0, cause);
    }

    /** A failure the kernel reported with {@code errno} (for example a cgroupfs write refused with EINVAL). */
    public CgroupException(String message, int errno, Throwable cause) {
        super(message, cause);
        this.errno = errno;
    }

    /** The errno the kernel returned, or 0 when the failure did not come from a system call (or it is unknown). */
    public int errno() {
        return errno;
    }
}
