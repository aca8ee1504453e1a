package io.jrunc.shim;

import java.time.Instant;

/**
 * How a process ended, as containerd's TaskExit and DeleteResponse carry it.
 *
 * @param status the exit status as containerd reports it: the exit code, or 128 + the signal that
 *               killed it (137 after SIGKILL)
 */
public record ProcessExit(int pid, int status, Instant exitedAt) {
}
