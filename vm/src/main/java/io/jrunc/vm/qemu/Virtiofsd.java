package io.jrunc.vm.qemu;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;

/**
 * The virtiofsd that serves one host directory to a pod's VM (Debian 12 ships qemu 7.2's C virtiofsd
 * with qemu, at {@value #BINARY}), one process per shared directory, listening on the vhost-user
 * socket {@code POD/TAG.sock} until qemu connects; it exits when qemu's end of that socket closes
 * (the device unplugged and its chardev removed, or qemu gone).
 *
 * <ul>
 * <li>{@code -o sandbox=namespace} (its default, written out): it enters new mount, pid and network
 * namespaces and pivot_roots into the shared directory, so nothing above that directory exists for
 * it: a guest's {@code ..} at the share's root, or a symlink pointing at / or out of the directory,
 * resolves inside it (symlinks are the guest's to follow; virtiofsd opens nothing through them).
 * <li>{@code -o cache=auto}: the guest caches attributes and data for a second; its writes go
 * through to the host file at once (no writeback cache), so the host sees them as they are made.
 * <li>Files are created with the guest caller's uid and gid (virtiofsd switches its fsuid per request),
 * so a file a container's user writes belongs to that uid on the host.
 * <li>No read-only mode exists in this virtiofsd: {@code :ro} is the guest's read-only mount of the tag.
 * </ul>
 */
public final class Virtiofsd {
    public static final String BINARY = "/usr/lib/qemu/virtiofsd";
    private static final String SOCKET_FLAG = "--socket-path=";
    private static final Duration SOCKET_WAIT = Duration.ofSeconds(10);

    private Virtiofsd() {
    }

    public static Path socket(Path podDir, String tag) {
        return podDir.resolve(tag + ".sock");
    }

    public static List<String> command(Path socket, Path directory) {
        return List.of(BINARY, SOCKET_FLAG + socket, "-o", "source=" + directory, "-o", "sandbox=namespace",
                "-o", "cache=auto", "-o", "log_level=warn");
    }

    /**
     * Starts it for {@code directory}, output appended to {@code log}, and waits for its socket. A
     * virtiofsd that exits or makes no socket in time is killed and its socket removed.
     */
    public static void start(Path podDir, String tag, Path directory, Path log) throws IOException {
        Path socket = socket(podDir, tag);
        Files.deleteIfExists(socket);
        Process p = new ProcessBuilder(command(socket, directory))
                .redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()))
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                .redirectErrorStream(true)
                .start();
        long deadline = System.nanoTime() + SOCKET_WAIT.toNanos();
        while (!Files.exists(socket)) {
            if (!p.isAlive() || System.nanoTime() > deadline) {
                stop(podDir, tag);
                throw new IOException(p.isAlive() ? "virtiofsd made no socket within " + SOCKET_WAIT.toSeconds() + " s"
                        : "virtiofsd for " + directory + " exited " + p.exitValue() + " (see monitor.log)");
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                stop(podDir, tag);
                throw new IOException("interrupted starting virtiofsd");
            }
        }
    }

    /** SIGKILLs the virtiofsd of {@code tag} (both its processes: it forks into its sandbox) and removes its socket. */
    public static void stop(Path podDir, String tag) throws IOException {
        kill(processes(SOCKET_FLAG + socket(podDir, tag)));
        Files.deleteIfExists(socket(podDir, tag));
    }

    /** SIGKILLs every virtiofsd of the pod and removes their sockets: the pod's VM is gone. */
    public static void stopAll(Path podDir) throws IOException {
        kill(processes(SOCKET_FLAG + podDir + "/"));
        if (Files.isDirectory(podDir)) {
            try (Stream<Path> files = Files.list(podDir)) {
                for (Path f : files.filter(f -> f.getFileName().toString().matches("fs[0-9a-f]{12}\\.sock")).toList()) {
                    Files.deleteIfExists(f);
                }
            }
        }
    }

    /** The pod's virtiofsd processes: their command line's socket path begins with {@code prefix}. */
    public static List<ProcessHandle> processes(String prefix) {
        long self = ProcessHandle.current().pid();
        List<ProcessHandle> found = new ArrayList<>();
        ProcessHandle.allProcesses().filter(h -> h.pid() != self).forEach(h -> {
            String[] args = h.info().arguments().orElse(null);
            if (args != null && h.info().command().map(c -> c.endsWith("virtiofsd")).orElse(false)
                    && Arrays.stream(args).anyMatch(a -> a.startsWith(prefix))) {
                found.add(h);
            }
        });
        return found;
    }

    private static void kill(List<ProcessHandle> found) throws IOException {
        found.forEach(ProcessHandle::destroyForcibly);
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        for (ProcessHandle h : found) {
            while (Liveness.live(h)) {
                if (System.nanoTime() > deadline) {
                    throw new IOException("virtiofsd " + h.pid() + " did not end after SIGKILL");
                }
                try {
                    Thread.sleep(10);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }
}
