package io.jrunc.seccomp;

/**
 * A profile jrunc cannot compile or load. The message starts with the JSON path of the field at fault
 * ({@code linux.seccomp.syscalls[3].action: unknown action "SCMP_ACT_FOO"}) and is shown to the user as
 * the one error line of the command.
 */
public final class SeccompException extends RuntimeException {
    public SeccompException(String message) {
        super(message);
    }
}
