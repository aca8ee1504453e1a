package io.jrunc.runtime;

import io.jrunc.bindings.Errno;
import io.jrunc.bindings.ErrnoException;
import io.jrunc.bindings.FileDescriptors;
import io.jrunc.bindings.PosixSpawn;
import io.jrunc.bindings.Processes;
import io.jrunc.bindings.Signals;
import io.jrunc.runtime.init.ChildWaits;
import io.jrunc.spec.Hook;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Runs OCI hooks (config.md "POSIX-platform Hooks"): each hook is spawned with the container's state
 * JSON on stdin, must exit 0, and is killed when its timeout passes. Hooks run in order; the first
 * failure stops the sequence. Spawned with posix_spawn like every process jrunc creates.
 */
public final class HookRunner {
    private HookRunner() {}

    /** Runs {@code hooks} of kind {@code kind} ("prestart", ...); throws on the first failure. */
    public static void run(String kind, List<Hook> hooks, byte[] stateJson) {
        if (hooks == null) {
            return;
        }
        for (int i = 0; i < hooks.size(); i++) {
            runOne(kind, i, hooks.get(i), stateJson);
        }
    }

    private static void runOne(String kind, int index, Hook hook, byte[] stateJson) {
        int[] stdin = FileDescriptors.pipe(FileDescriptors.O_CLOEXEC);
        int[] output = FileDescriptors.pipe(FileDescriptors.O_CLOEXEC);
        int pid;
        try (PosixSpawn spawn = new PosixSpawn()) {
            spawn.cleanSignals().dup2(stdin[0], 0).dup2(output[1], 1).dup2(output[1], 2).closeFrom(3);
            List<String> args = hook.args() == null || hook.args().isEmpty() ? List.of(hook.path()) : hook.args();
            pid = spawn.spawn(hook.path(), args, hook.env() == null ? List.of() : hook.env());
        } catch (ErrnoException e) {
            FileDescriptors.closeQuietly(stdin[0]);
            FileDescriptors.closeQuietly(stdin[1]);
            FileDescriptors.closeQuietly(output[0]);
            FileDescriptors.closeQuietly(output[1]);
            throw new ContainerException(kind + " hook #" + index + ": " + e.goStyle());
        }
        FileDescriptors.close(stdin[0]);
        FileDescriptors.close(output[1]);
        try {
            try {
                FileDescriptors.write(stdin[1], stateJson);
            } catch (ErrnoException e) {
                if (!e.is(Errno.EPIPE)) {
                    throw e;
                }
            }
            FileDescriptors.close(stdin[1]);
            stdin[1] = -1;
            long deadline = hook.timeout() == null ? Long.MAX_VALUE
                    : System.nanoTime() + hook.timeout() * 1_000_000_000L;
            ByteArrayOutputStream captured = new ByteArrayOutputStream();
            byte[] buf = new byte[4096];
            while (true) {
                long left = deadline == Long.MAX_VALUE ? 1000 : Math.max(0, (deadline - System.nanoTime()) / 1_000_000);
                short ev = FileDescriptors.poll(output[0], FileDescriptors.POLLIN, (int) Math.min(left, 1000));
                if (ev != 0) {
                    int n = FileDescriptors.read(output[0], buf, buf.length);
                    if (n == 0) {
                        break;
                    }
                    if (captured.size() < 65536) {
                        captured.write(buf, 0, n);
                    }
                } else if (System.nanoTime() >= deadline) {
                    Processes.kill(pid, Signals.SIGKILL);
                    ChildWaits.waitpid(pid, 0);
                    throw new ContainerException(kind + " hook #" + index + ": timeout after " + hook.timeout()
                            + " seconds");
                }
            }
            Processes.WaitStatus status = ChildWaits.waitpid(pid, 0);
            if (!status.exited() || status.exitCode() != 0) {
                String out = captured.toString(StandardCharsets.UTF_8).strip();
                throw new ContainerException(kind + " hook #" + index + ": " + hook.path() + ": "
                        + (status.exited() ? "exit status " + status.exitCode() : "signal: " + status.signal())
                        + (out.isEmpty() ? "" : ", stdout: " + out));
            }
        } finally {
            FileDescriptors.closeQuietly(stdin[1]);
            FileDescriptors.closeQuietly(output[0]);
        }
    }
}
