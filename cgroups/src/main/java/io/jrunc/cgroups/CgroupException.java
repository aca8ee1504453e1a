package io.jrunc.cgroups;

/**
 * Every failure of this module: a cgroupsPath that cannot be used, a hierarchy that is not mounted, a
 * cgroupfs file that could not be read or written, a cgroup that would not go away. The message is
 * meant to be printed as is by the runtime (runc prints its cgroup errors the same way: one line, the
 * file or path that failed, then the reason).
 */
public final class CgroupException extends Exception {
    public CgroupException(String message) {
        super(message);
    }

    public CgroupException(String message, Throwable cause) {
        super(message, cause);
    }
}
