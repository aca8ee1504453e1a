package io.jrunc.vm;

/**
 * jrunc-vm's own failure: bad input, state it cannot read, a VM or monitor that does not answer. The
 * message is the one line the CLI prints (it names the flag, file or pod at fault); the exit code is
 * podman's: 125 for jrunc-vm's own errors, 126 for a command that cannot run, 127 for one not found.
 */
public final class VmException extends Exception {
    public static final int OWN_ERROR = 125;
    public static final int CANNOT_RUN = 126;
    public static final int NOT_FOUND = 127;

    private final int exitCode;

    public VmException(String message) {
        this(OWN_ERROR, message, null);
    }

    public VmException(String message, Throwable cause) {
        this(OWN_ERROR, message, cause);
    }

    public VmException(int exitCode, String message, Throwable cause) {
        super(message, cause);
        this.exitCode = exitCode;
    }

    public int exitCode() {
        return exitCode;
    }
}
