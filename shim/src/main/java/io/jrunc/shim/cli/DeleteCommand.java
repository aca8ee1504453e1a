package io.jrunc.shim.cli;

import io.jrunc.bindings.Mounts;
import io.jrunc.bindings.Signals;
import io.jrunc.containerd.api.task.v2.DeleteResponse;
import io.jrunc.shim.EventOrder;
import io.jrunc.shim.TaskService;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;

/**
 * {@code delete}: containerd runs it when a task's shim died, with {@code -bundle}. The task's init (its
 * pid from the bundle's init.pid, checked to be the process rooted in the bundle's rootfs, so that a
 * reused pid is never signalled) is killed, the rootfs unmounted, and a DeleteResponse printed on
 * stdout as protobuf: the init's pid, exit status 137 (killed by SIGKILL), now as the exit time.
 */
final class DeleteCommand {
    private DeleteCommand() {
    }

    static final int KILLED_STATUS = 128 + Signals.SIGKILL;

    static int run(ShimFlags flags, PrintStream out) throws ShimFlags.UsageException, IOException {
        flags.require("id");
        Path bundle = flags.bundle().isEmpty() ? Path.of("").toAbsolutePath() : Path.of(flags.bundle());
        if (!bundle.isAbsolute()) {
            throw new ShimFlags.UsageException("-bundle " + bundle + " is not an absolute path");
        }
        Path rootfs = bundle.resolve("rootfs");
        int pid = initPid(bundle);
        if (pid > 0 && rootedIn(pid, rootfs)) {
            ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
        }
        for (int i = 0; i < 16 && mounted(rootfs); i++) {
            Mounts.umount(rootfs.toString(), Mounts.MNT_DETACH);
        }
        DeleteResponse response = DeleteResponse.newBuilder().setPid(Math.max(pid, 0)).setExitStatus(KILLED_STATUS)
                .setExitedAt(EventOrder.timestamp(Instant.now())).build();
        response.writeTo(out);
        out.flush();
        return 0;
    }

    private static int initPid(Path bundle) {
        try {
            return Integer.parseInt(Files.readString(bundle.resolve(TaskService.INIT_PID_FILE), StandardCharsets.US_ASCII).strip());
        } catch (IOException | NumberFormatException e) {
            return 0;
        }
    }

    /** Whether process {@code pid}'s root directory is {@code rootfs} (it is the container's). */
    private static boolean rootedIn(int pid, Path rootfs) {
        try {
            return Files.readSymbolicLink(Path.of("/proc/" + pid + "/root")).equals(rootfs);
        } catch (IOException e) {
            return false;
        }
    }

    private static boolean mounted(Path dir) throws IOException {
        String target = dir.toString();
        for (String line : Files.readAllLines(Path.of("/proc/self/mountinfo"))) {
            String[] fields = line.split(" ");
            if (fields.length > 4 && fields[4].replace("\\040", " ").equals(target)) {
                return true;
            }
        }
        return false;
    }
}
