package io.jrunc.shim.cli;

import io.jrunc.bindings.Mounts;
import io.jrunc.bindings.Signals;
import io.jrunc.containerd.api.task.v2.DeleteResponse;
import io.jrunc.shim.EventOrder;
import io.jrunc.shim.ShimAddress;
import io.jrunc.shim.ShimOptions;
import io.jrunc.shim.ShimSockets;
import io.jrunc.shim.TaskService;
import io.jrunc.shim.host.HostTaskBackend;
import io.jrunc.shim.vm.VmTaskBackend;
import io.jrunc.ttrpc.RpcException;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;

/**
 * {@code delete}: containerd runs it when a task's shim died, with {@code -bundle}. With the host back
 * end (the options {@code start} recorded in the bundle say which) the task's container is deleted from
 * the back end's state root (its processes SIGKILLed, its cgroup and state removed); otherwise, or when
 * no state was left, the init from the bundle's init.pid is killed (only when that process's root is the
 * bundle's rootfs, so a reused pid is never signalled). With the VM back end, unless a live shim answers
 * on the group's socket, the task's pod is removed as `jrunc-vm pod rm -f` removes it (qemu, monitor,
 * virtiofsd, tap, state). The dead shim's socket file goes, the rootfs is
 * unmounted, and a DeleteResponse is printed on stdout as protobuf: the init's pid, exit status 137
 * (killed by SIGKILL), now as the exit time.
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
        ShimOptions options = recordedOptions(bundle);
        if (options.backend() == ShimOptions.Backend.HOST) {
            flags.require("namespace");
            String root = options.settings().get("root");
            Path base = root == null ? HostTaskBackend.DEFAULT_BASE : Path.of(root);
            // containerd runs delete also after every task deleted through its shim (when it closes the
            // task's connection): then no state is left, and the runtime library need not be loaded
            if (!plainId(flags.namespace()) || !plainId(flags.id()) || Files.exists(base.resolve(flags.namespace()).resolve(flags.id()))) {
                try {
                    int statePid = HostTaskBackend.deleteAfterDeadShim(base, flags.namespace(), flags.id());
                    pid = statePid > 0 ? statePid : pid;
                } catch (RpcException e) {
                    throw new IOException(e.getMessage());
                }
            }
        }
        if (options.backend() == ShimOptions.Backend.VM && !liveShimAt(bundle)) {
            flags.require("namespace");
            try {
                VmTaskBackend.deleteAfterDeadShim(options.settings(), flags.namespace(), flags.id(), bundle);
            } catch (RpcException e) {
                throw new IOException(e.getMessage());
            }
        }
        removeDeadSocket(bundle);
        for (int i = 0; i < 16 && mounted(rootfs); i++) {
            Mounts.umount(rootfs.toString(), Mounts.MNT_DETACH);
        }
        DeleteResponse response = DeleteResponse.newBuilder().setPid(Math.max(pid, 0)).setExitStatus(KILLED_STATUS)
                .setExitedAt(EventOrder.timestamp(Instant.now())).build();
        response.writeTo(out);
        out.flush();
        return 0;
    }

    /**
     * The dead shim's socket file (its address from the bundle, where start wrote it), unless a live
     * shim answers there (a new shim of the same group); only a path in the shims' socket directory.
     */
    private static void removeDeadSocket(Path bundle) throws IOException {
        Path socket = shimSocket(bundle);
        if (socket != null && !ShimSockets.alive(socket)) {
            Files.deleteIfExists(socket);
        }
    }

    /**
     * Whether a live shim answers on the group's socket (a new shim of the same group, which then
     * holds the group's pod in VM mode).
     */
    private static boolean liveShimAt(Path bundle) {
        Path socket = shimSocket(bundle);
        return socket != null && ShimSockets.alive(socket);
    }

    /** The shim's socket from the bundle's address file, where start wrote it; null unless in the shims' directory. */
    private static Path shimSocket(Path bundle) {
        String address;
        try {
            address = Files.readString(bundle.resolve("address"), StandardCharsets.UTF_8).strip();
        } catch (IOException e) {
            return null;
        }
        Path socket = ShimAddress.pathOf(address).normalize();
        return socket.getParent() != null && socket.getParent().equals(ShimAddress.SOCKET_DIR) ? socket : null;
    }

    /**
     * A containerd identifier (letters and digits, single '.', '_' or '-' between them): safe to name a
     * directory with. Anything else goes to the back end's check, which refuses it by name.
     */
    static boolean plainId(String id) {
        return id.length() <= 76 && id.matches("[A-Za-z0-9]+(?:[._-][A-Za-z0-9]+)*");
    }

    /** The options start recorded; the defaults (host) when there are none or they no longer parse. */
    private static ShimOptions recordedOptions(Path bundle) {
        try {
            return ShimOptions.fromAnyBytes(Files.readAllBytes(bundle.resolve(StartCommand.OPTIONS_FILE)));
        } catch (IOException | ShimOptions.OptionsException e) {
            return ShimOptions.DEFAULTS;
        }
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
