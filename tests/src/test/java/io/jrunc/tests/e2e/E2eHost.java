package io.jrunc.tests.e2e;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrunc.bindings.FileTrees;
import io.jrunc.testsupport.Requirements;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * What the end-to-end tests need from the host: the jrunc under test, the client packages, a busybox
 * image built locally (no registry is reachable), and cleanup of what the clients leave behind when a
 * test fails half-way (processes, mounts, cgroups, directories).
 */
final class E2eHost {
    private E2eHost() {}

    static final String IMAGE = "localhost/jrunc-busybox:e2e";
    static final String PATH_ENV = "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

    /** The launcher under test: system property jrunc.binary (set by `make test`), else ../build/bin/jrunc. */
    static Path jrunc() {
        Path p = Path.of(System.getProperty("jrunc.binary", "../build/bin/jrunc")).toAbsolutePath().normalize();
        assertTrue(Files.isExecutable(p), p + " is missing: run `make build` first (or set -Djrunc.binary)");
        return p;
    }

    /**
     * Root, every command on PATH and a static busybox, or the test class fails under CI=true (`make deps`
     * installs the packages, so a missing one there means the Makefile lost it) and skips elsewhere.
     */
    static void requireRootAndCommands(String packages, String... commands) {
        Requirements.requireRoot("end-to-end tests drive real container engines");
        Requirements.requireCommands(packages, commands);
        Requirements.require(staticBusybox() != null, "a statically linked /bin/busybox: install the Debian package"
                + " busybox-static (`make deps` does)");
    }

    static Path which(String command) {
        return Requirements.which(command).orElse(null);
    }

    /** busybox-static's binary, or null if /bin/busybox is missing or dynamically linked (has PT_INTERP). */
    static Path staticBusybox() {
        Path p = Path.of("/bin/busybox");
        try {
            if (!Files.isRegularFile(p)) {
                return null;
            }
            ByteBuffer elf = ByteBuffer.wrap(Files.readAllBytes(p)).order(ByteOrder.LITTLE_ENDIAN);
            long phoff = elf.getLong(32);
            int phentsize = Short.toUnsignedInt(elf.getShort(54));
            int phnum = Short.toUnsignedInt(elf.getShort(56));
            for (int i = 0; i < phnum; i++) {
                if (elf.getInt((int) phoff + i * phentsize) == 3) { // PT_INTERP
                    return null;
                }
            }
            return p;
        } catch (IOException | IndexOutOfBoundsException e) {
            return null;
        }
    }

    /** A busybox root filesystem (applets as symlinks in /bin, root in /etc/passwd), tarred for import. */
    static Path busyboxRootfsTar(Path work, Command cmd) throws IOException {
        Path rootfs = work.resolve("rootfs");
        for (String d : List.of("bin", "etc", "proc", "sys", "dev", "tmp", "root")) {
            Files.createDirectories(rootfs.resolve(d));
        }
        Path busybox = rootfs.resolve("bin/busybox");
        Files.copy(staticBusybox(), busybox);
        Command.Result list = cmd.run(List.of(busybox.toString(), "--list"));
        assertTrue(list.exitCode() == 0, list.describe());
        for (String applet : list.out().split("\n")) {
            Path link = rootfs.resolve("bin").resolve(applet.strip());
            if (!applet.isBlank() && !Files.exists(link, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
                Files.createSymbolicLink(link, Path.of("busybox"));
            }
        }
        Files.writeString(rootfs.resolve("etc/passwd"), "root:x:0:0:root:/root:/bin/sh\n");
        Files.writeString(rootfs.resolve("etc/group"), "root:x:0:\n");
        Path tar = work.resolve("busybox-rootfs.tar");
        Command.Result r = cmd.run(List.of("tar", "--numeric-owner", "-C", rootfs.toString(), "-cf", tar.toString(), "."));
        assertTrue(r.exitCode() == 0, r.describe());
        return tar;
    }

    /** An image for {@link #ociArchive}: its name and what its config runs (Entrypoint, then Cmd). */
    record OciImage(String name, List<String> entrypoint, List<String> cmd) {}

    /**
     * An OCI image layout archive (what `podman save --format oci-archive` makes) holding the rootfs
     * tar as its one uncompressed layer, named {@link #IMAGE}, for `ctr image import`. Written here so
     * the containerd test needs no other image tool.
     */
    static Path ociArchive(Path work, Path layerTar, Command cmd) throws IOException {
        return ociArchive(work, layerTar, cmd, List.of(new OciImage(IMAGE, List.of(), List.of("sh"))));
    }

    /** As above, with one image per entry of {@code images}, all on the same layer. */
    static Path ociArchive(Path work, Path layerTar, Command cmd, List<OciImage> images) throws IOException {
        Path layout = work.resolve("oci-layout");
        Path blobs = Files.createDirectories(layout.resolve("blobs/sha256"));
        byte[] layer = Files.readAllBytes(layerTar);
        String layerDigest = sha256(layer);
        Files.write(blobs.resolve(layerDigest), layer);
        List<String> manifests = new ArrayList<>();
        for (OciImage image : images) {
            byte[] config = ("{\"architecture\":\"amd64\",\"os\":\"linux\",\"config\":{\"Env\":[\"" + PATH_ENV
                    + "\"]" + (image.entrypoint().isEmpty() ? "" : ",\"Entrypoint\":" + jsonStrings(image.entrypoint()))
                    + ",\"Cmd\":" + jsonStrings(image.cmd()) + "},\"rootfs\":{\"type\":\"layers\",\"diff_ids\":[\"sha256:"
                    + layerDigest + "\"]}}").getBytes(StandardCharsets.UTF_8);
            String configDigest = sha256(config);
            Files.write(blobs.resolve(configDigest), config);
            byte[] manifest = ("{\"schemaVersion\":2,\"mediaType\":\"application/vnd.oci.image.manifest.v1+json\","
                    + "\"config\":{\"mediaType\":\"application/vnd.oci.image.config.v1+json\",\"digest\":\"sha256:"
                    + configDigest + "\",\"size\":" + config.length + "},\"layers\":[{\"mediaType\":"
                    + "\"application/vnd.oci.image.layer.v1.tar\",\"digest\":\"sha256:" + layerDigest + "\",\"size\":"
                    + layer.length + "}]}").getBytes(StandardCharsets.UTF_8);
            String manifestDigest = sha256(manifest);
            Files.write(blobs.resolve(manifestDigest), manifest);
            manifests.add("{\"mediaType\":\"application/vnd.oci.image.manifest.v1+json\",\"digest\":\"sha256:"
                    + manifestDigest + "\",\"size\":" + manifest.length
                    + ",\"annotations\":{\"org.opencontainers.image.ref.name\":\"" + image.name() + "\"}}");
        }
        Files.writeString(layout.resolve("oci-layout"), "{\"imageLayoutVersion\":\"1.0.0\"}");
        Files.writeString(layout.resolve("index.json"), "{\"schemaVersion\":2,\"manifests\":["
                + String.join(",", manifests) + "]}");
        Path archive = work.resolve("busybox-oci.tar");
        Command.Result r = cmd.run(List.of("tar", "-C", layout.toString(), "-cf", archive.toString(), "."));
        assertTrue(r.exitCode() == 0, r.describe());
        return archive;
    }

    private static String jsonStrings(List<String> values) {
        return values.stream().map(v -> "\"" + v.replace("\\", "\\\\").replace("\"", "\\\"") + "\"")
                .collect(Collectors.joining(",", "[", "]"));
    }

    private static String sha256(byte[] data) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(data));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The owner of {@code file} as the host's kernel shows it: "UID:GID". */
    static String owner(Path file) {
        try {
            return Files.getAttribute(file, "unix:uid", java.nio.file.LinkOption.NOFOLLOW_LINKS) + ":"
                    + Files.getAttribute(file, "unix:gid", java.nio.file.LinkOption.NOFOLLOW_LINKS);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * An id map as /proc/PID/uid_map or gid_map prints it (columns padded to 10), as lines of "INSIDE
     * OUTSIDE COUNT" separated by single spaces.
     */
    static List<String> idMap(String text) {
        return text.lines().map(l -> l.strip().replaceAll("\\s+", " ")).filter(l -> !l.isEmpty()).toList();
    }

    /**
     * A directory under {@code parent} that any uid may write to, for a volume whose files a container
     * with a user namespace writes as an unprivileged host id.
     */
    static Path sharedDirectory(Path parent, String name) throws IOException {
        Path dir = Files.createDirectories(parent.resolve(name));
        Files.setPosixFilePermissions(dir, java.nio.file.attribute.PosixFilePermissions.fromString("rwxrwxrwx"));
        return dir;
    }

    /** Whatever a test left (it failed half-way): its tasks killed and deleted, its containers deleted. */
    static void removeTasks(Command cmd, java.util.function.Function<String[], List<String>> ctr, List<String> ids) {
        for (String id : ids) {
            cmd.run(ctr.apply(new String[] {"task", "kill", "--all", "--signal", "SIGKILL", id}));
            cmd.run(ctr.apply(new String[] {"task", "delete", "--force", id}));
            cmd.run(ctr.apply(new String[] {"container", "delete", id}));
        }
        ids.clear();
    }

    /**
     * Ends a test class's private containerd (its image removed first, SIGTERM, SIGKILL after 20 s),
     * then finds what it left: shims (whose command lines name its socket under {@code work}, given
     * {@code shimGraceSeconds} to end after their Shutdown), mounts under {@code work}, the namespace's
     * cgroup tree; removes all of it and fails on any process or mount that was left.
     */
    static void stopPrivateContainerd(Process containerd, Path work, String namespace, Command cmd,
                                      java.util.function.Function<String[], List<String>> ctr, int shimGraceSeconds)
            throws InterruptedException {
        try {
            if (containerd != null) {
                cmd.run(ctr.apply(new String[] {"image", "remove", IMAGE}));
                containerd.destroy(); // SIGTERM to its pid
                if (!containerd.waitFor(20, java.util.concurrent.TimeUnit.SECONDS)) {
                    containerd.destroyForcibly().waitFor();
                }
            }
        } finally {
            endSharedShims(work);
            if (shimGraceSeconds > 0) {
                eventually(shimGraceSeconds, () -> processesMentioning(work.toString()).isEmpty());
            }
            // shims outlive containerd by design; any left means a task was not deleted
            List<String> leftovers = killProcessesMentioning(work.toString());
            List<String> mounts = unmountUnder(work, cmd);
            removeCgroupTree("/" + namespace);
            deleteTree(work);
            assertTrue(leftovers.isEmpty(), "processes left behind: " + leftovers);
            assertTrue(mounts.isEmpty(), "mounts left behind: " + mounts);
        }
    }

    /** What a shared host shim (containerd-shim-jrunc-v2's default) has in its command line. */
    static final String SHARED_SHIM_MARKER = "@jrunc-host";

    /**
     * Ends the shared host shims of the containerd under {@code work} with SIGTERM (they remove their
     * socket and pid file as they go): one lingers for its idle time after its last task by design, so
     * it is no leftover. A task it still served would show as a mount or cgroup left behind.
     */
    static void endSharedShims(Path work) {
        processesMentioning(work.toString()).forEach((pid, cmdline) -> {
            if (cmdline.contains(SHARED_SHIM_MARKER)) {
                ProcessHandle.of(pid).ifPresent(h -> {
                    h.destroy();
                    try {
                        h.onExit().get(10, java.util.concurrent.TimeUnit.SECONDS);
                    } catch (Exception e) {
                        h.destroyForcibly();
                    }
                });
            }
        });
    }

    /**
     * The process listening on the unix socket {@code socket} (a shim: containerd's bundles name its
     * address), from /proc/net/unix and the processes' descriptors; 0 when none.
     */
    static long listenerPid(Path socket) {
        String inode = null;
        try {
            for (String line : Files.readAllLines(Path.of("/proc/net/unix"))) {
                String[] f = line.trim().split("\\s+");
                // Num RefCount Protocol Flags Type St Inode Path; flag 0x10000 is a listening socket
                if (f.length >= 8 && f[7].equals(socket.toString()) && (Long.parseLong(f[3], 16) & 0x10000) != 0) {
                    inode = f[6];
                }
            }
            if (inode == null) {
                return 0;
            }
            String target = "socket:[" + inode + "]";
            try (Stream<Path> procs = Files.list(Path.of("/proc"))) {
                for (Path p : procs.filter(p -> p.getFileName().toString().matches("\\d+")).toList()) {
                    try (Stream<Path> fds = Files.list(p.resolve("fd"))) {
                        for (Path fd : fds.toList()) {
                            try {
                                if (Files.readSymbolicLink(fd).toString().equals(target)) {
                                    return Long.parseLong(p.getFileName().toString());
                                }
                            } catch (IOException ignored) {
                                // closed meanwhile
                            }
                        }
                    } catch (IOException | UncheckedIOException ignored) {
                        // the process ended
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return 0;
    }

    /** Polls {@code condition} every 200 ms for up to {@code seconds}. */
    static boolean eventually(int seconds, BooleanSupplier condition) {
        long deadline = System.nanoTime() + seconds * 1_000_000_000L;
        while (true) {
            if (condition.getAsBoolean()) {
                return true;
            }
            if (System.nanoTime() > deadline) {
                return false;
            }
            try {
                Thread.sleep(200);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
    }

    // ---- cleanup -------------------------------------------------------------------------------

    /**
     * SIGKILLs processes whose command line mentions {@code marker} (a test's private directory):
     * shims and conmon started for this test that a failure left behind. Returns their command lines.
     */
    static List<String> killProcessesMentioning(String marker) {
        List<String> killed = new ArrayList<>();
        processesMentioning(marker).forEach((pid, cmdline) -> ProcessHandle.of(pid).ifPresent(h -> {
            if (h.destroyForcibly()) {
                killed.add(pid + ": " + cmdline);
            }
        }));
        return killed;
    }

    /** Processes other than this JVM whose command line mentions {@code marker}: pid to command line. */
    static Map<Long, String> processesMentioning(String marker) {
        Map<Long, String> found = new TreeMap<>();
        long self = ProcessHandle.current().pid();
        try (Stream<Path> procs = Files.list(Path.of("/proc"))) {
            for (Path p : procs.filter(p -> p.getFileName().toString().matches("\\d+")).toList()) {
                long pid = Long.parseLong(p.getFileName().toString());
                if (pid == self) {
                    continue;
                }
                String cmdline;
                try {
                    cmdline = new String(Files.readAllBytes(p.resolve("cmdline")), StandardCharsets.UTF_8).replace('\0', ' ');
                } catch (IOException e) {
                    continue;
                }
                if (cmdline.contains(marker)) {
                    found.put(pid, cmdline.strip());
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return found;
    }

    /** Mount points at or below {@code dir} in this mount namespace, deepest first. */
    static List<String> mountsUnder(Path dir) {
        String prefix = dir.toString();
        try {
            return Files.readAllLines(Path.of("/proc/self/mountinfo")).stream()
                    .map(l -> unescape(l.split(" ")[4]))
                    .filter(m -> m.equals(prefix) || m.startsWith(prefix + "/"))
                    .sorted(Comparator.comparingInt(String::length).reversed())
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Lazily unmounts whatever is still mounted below {@code dir}; returns what it unmounted. */
    static List<String> unmountUnder(Path dir, Command cmd) {
        List<String> mounts = mountsUnder(dir);
        for (String m : mounts) {
            cmd.run(List.of("umount", "-l", m));
        }
        return mounts;
    }

    private static String unescape(String mountinfoField) {
        return mountinfoField.replace("\\040", " ").replace("\\011", "\t").replace("\\012", "\n")
                .replace("\\134", "\\");
    }

    /** Cgroup mount points (v1 hierarchies and the v2 tree) of this host. */
    static List<Path> cgroupMounts() {
        try {
            return Files.readAllLines(Path.of("/proc/self/mountinfo")).stream()
                    .filter(l -> {
                        String fsType = l.substring(l.indexOf(" - ") + 3).split(" ")[0];
                        return fsType.equals("cgroup") || fsType.equals("cgroup2");
                    })
                    .map(l -> Path.of(unescape(l.split(" ")[4])))
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Directories of cgroup {@code relative} (e.g. "/jrunc-e2e-x") that exist in any hierarchy. */
    static List<Path> cgroupDirs(String relative) {
        return cgroupMounts().stream().map(m -> m.resolve(relative.replaceFirst("^/+", "")))
                .filter(Files::isDirectory).toList();
    }

    /** Removes cgroup {@code relative} and its descendants (rmdir, children first) in every hierarchy. */
    static void removeCgroupTree(String relative) {
        for (Path dir : cgroupDirs(relative)) {
            try (Stream<Path> walk = Files.walk(dir)) {
                for (Path d : walk.filter(Files::isDirectory).sorted(Comparator.reverseOrder()).toList()) {
                    try {
                        Files.delete(d);
                    } catch (IOException ignored) {
                        // still populated: reported by the test's own assertions
                    }
                }
            } catch (IOException | UncheckedIOException ignored) {
                // raced with another removal
            }
        }
    }

    /**
     * Deletes {@code dir} recursively without following symlinks, as far as it can (a busy mount point
     * stays, for the test's own report of what is left).
     */
    static void deleteTree(Path dir) {
        try {
            FileTrees.delete(dir);
        } catch (IOException ignored) {
            // what could not be removed is left for the report
        }
    }

    /**
     * containerd killed with SIGKILL (as a crash or an OOM kill ends it) and started again with the same
     * config (root, state, sockets), its output appended to {@code log}, {@code env} added to its
     * environment as at its first start, {@code flags} added to its command line (for example a log
     * level). Its shims go on running meanwhile; the caller waits for it.
     */
    static Process restartContainerd(Process containerd, Path config, Path log, Map<String, String> env,
            String... flags) throws IOException, InterruptedException {
        containerd.destroyForcibly(); // nothing when the caller killed it already
        assertTrue(containerd.waitFor(30, java.util.concurrent.TimeUnit.SECONDS), "containerd did not end after SIGKILL");
        List<String> command = new ArrayList<>(List.of("containerd", "--config", config.toString()));
        command.addAll(List.of(flags));
        ProcessBuilder pb = new ProcessBuilder(command)
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                .redirectInput(Path.of("/dev/null").toFile());
        pb.environment().putAll(env);
        return pb.start();
    }

    /**
     * The process that listens on the unix socket bound at {@code socket} (a shim, found by its
     * address rather than by its command line), or -1: the socket's inode from /proc/net/unix, then the
     * process holding a descriptor of it.
     */
    static long listenerOf(Path socket) {
        String inode = null;
        try {
            for (String line : Files.readAllLines(Path.of("/proc/net/unix"))) {
                String[] f = line.trim().split("\\s+");
                // Num RefCount Protocol Flags Type St Inode Path; flags 00010000 is __SO_ACCEPTCON (listening)
                if (f.length >= 8 && f[7].equals(socket.toString()) && f[3].equals("00010000")) {
                    inode = f[6];
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        if (inode == null) {
            return -1;
        }
        String target = "socket:[" + inode + "]";
        try (Stream<Path> procs = Files.list(Path.of("/proc"))) {
            for (Path p : procs.filter(p -> p.getFileName().toString().matches("\\d+")).toList()) {
                try (Stream<Path> fds = Files.list(p.resolve("fd"))) {
                    if (fds.anyMatch(fd -> {
                        try {
                            return Files.readSymbolicLink(fd).toString().equals(target);
                        } catch (IOException e) {
                            return false;
                        }
                    })) {
                        return Long.parseLong(p.getFileName().toString());
                    }
                } catch (IOException | UncheckedIOException ignored) {
                    // the process ended meanwhile
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return -1;
    }

    /**
     * The cgroup directories of process {@code pid}, one per hierarchy it is in (v1 hierarchies and the
     * v2 tree), keyed by the hierarchy's controllers ("freezer", "memory", "cpu,cpuacct"; "" for v2),
     * read from /proc/PID/cgroup and the hierarchies' mount points in /proc/self/mountinfo.
     */
    static Map<String, Path> cgroupsOf(long pid) {
        try {
            List<String> mountinfo = Files.readAllLines(Path.of("/proc/self/mountinfo"));
            Map<String, Path> dirs = new TreeMap<>();
            for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "cgroup"))) {
                String[] f = line.split(":", 3);
                List<String> controllers = f[1].isEmpty() ? List.of() : List.of(f[1].split(","));
                for (String l : mountinfo) {
                    String[] after = l.substring(l.indexOf(" - ") + 3).split(" ");
                    boolean match = controllers.isEmpty() ? after[0].equals("cgroup2")
                            : after[0].equals("cgroup") && List.of(after[2].split(",")).containsAll(controllers);
                    if (match) {
                        dirs.put(f[1], Path.of(unescape(l.split(" ")[4])).resolve(f[2].replaceFirst("^/+", "")));
                        break;
                    }
                }
            }
            return dirs;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * A containerd of a test's own: root, state and the opt plugin's directory under {@code dir}, its
     * gRPC and ttRPC sockets at {@code socket}, no CRI plugin; the config written to {@code config}, the
     * output to {@code log}. The caller waits for it in its own way.
     */
    static Process startContainerd(Path dir, Path socket, Path config, Path log) throws IOException {
        return startContainerd(dir, socket, config, log, null, Map.of());
    }

    /**
     * As above, with the CRI plugin configured by {@code criTables} (TOML tables under
     * [plugins."io.containerd.grpc.v1.cri"], appended to the config), or disabled when it is null;
     * {@code env} is added to containerd's environment (its shims inherit it: PATH finds them).
     */
    static Process startContainerd(Path dir, Path socket, Path config, Path log, String criTables,
            Map<String, String> env) throws IOException {
        Files.writeString(config, """
                version = 2
                root = "%1$s/root"
                state = "%1$s/state"
                %3$s
                [grpc]
                  address = "%2$s"
                [ttrpc]
                  address = "%2$s.ttrpc"
                [plugins."io.containerd.internal.v1.opt"]
                  path = "%1$s/opt"
                """.formatted(dir, socket, criTables == null ? "disabled_plugins = [\"io.containerd.grpc.v1.cri\"]" : "")
                + (criTables == null ? "" : criTables));
        ProcessBuilder pb = new ProcessBuilder("containerd", "--config", config.toString())
                .redirectErrorStream(true).redirectOutput(log.toFile())
                .redirectInput(Path.of("/dev/null").toFile());
        pb.environment().putAll(env);
        return pb.start();
    }
}
