package io.jrunc.runtime.init;

import io.jrunc.bindings.Errno;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * What the container's child writes to the exec gate when its execve returned (ChainSpawn's last steps):
 * the errno, native order, then the program's path. Whoever opened the gate (start, run, exec) reads
 * until EOF: nothing means the program was exec'd (the write end is close-on-exec) or the child died
 * otherwise; these bytes mean it could not be, and the child then exits with status 127.
 */
public record ExecFailure(int errno, String path) {

    /** The failure in the first {@code length} bytes read from the gate, or null when there are none. */
    public static ExecFailure of(byte[] bytes, int length) {
        if (length < 4) {
            return null;
        }
        int errno = ByteBuffer.wrap(bytes, 0, 4).order(ByteOrder.nativeOrder()).getInt();
        return new ExecFailure(errno, new String(bytes, 4, length - 4, StandardCharsets.UTF_8));
    }

    /** As runc's init words it: {@code exec /bad: exec format error}. */
    public String message() {
        return "exec " + path + ": " + Errno.describe(errno);
    }

    /** The log line of the command that opened the gate. */
    public String logMessage() {
        return "unable to start container process: " + message() + " (the process exited with status 127)";
    }
}
