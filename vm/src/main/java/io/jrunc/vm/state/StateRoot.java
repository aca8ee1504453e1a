package io.jrunc.vm.state;

import com.fasterxml.jackson.databind.JsonNode;
import io.jrunc.bindings.FileTrees;
import io.jrunc.vm.Names;
import io.jrunc.vm.VmException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The state root (/run/jrunc-vm, --root) and its layout:
 * <pre>
 * ROOT/lock                                  flock held while names are allocated or given up
 * ROOT/pods/P/pod.json                       PodRecord
 * ROOT/pods/P/monitor.sock                   the pod monitor's ttRPC socket (CLI clients)
 * ROOT/pods/P/monitor.lock                   flock held by the live monitor for its whole life
 * ROOT/pods/P/create.lock                    flock held shared by each create into the pod, for its whole call
 * ROOT/pods/P/qmp.sock, agent.sock           qemu's QMP and the agent port's chardev (the monitor's alone)
 * ROOT/pods/P/console.log, monitor.log       the VM's serial console; the monitor's own log and qemu's stderr
 * ROOT/pods/P/containers/C/container.json    ContainerRecord
 * ROOT/pods/P/containers/C/config.json       the spec builder's output
 * ROOT/pods/P/containers/C/rootfs.img        the ext4 image of the bundle's rootfs
 * ROOT/pods/P/containers/C/stdout.log, stderr.log   the container's output (kept across pod stop)
 * </pre>
 * State files are written to a temporary name and renamed, so a reader never sees half of one.
 */
public final class StateRoot {
    public static final Path DEFAULT = Path.of("/run/jrunc-vm");

    private final Path root;

    public StateRoot(Path root) {
        this.root = root.toAbsolutePath().normalize();
    }

    public Path path() {
        return root;
    }

    /**
     * The pod's directory. Every path under the state root is built here or in {@link #containerDir},
     * from a name that keeps to the name rule ({@link Names#require}): a name from the command line
     * ("../../pods/OTHER/containers/C", say) is refused before it touches a path.
     */
    public Path podDir(String pod) throws VmException {
        return root.resolve("pods").resolve(Names.require(pod, "pod name"));
    }

    public Path containerDir(String pod, String container) throws VmException {
        return podDir(pod).resolve("containers").resolve(Names.require(container, "container name"));
    }

    /** Holds ROOT/lock until closed: allocation of names and removal are serialised across processes. */
    public AutoCloseable lock() throws VmException {
        return lock("lock", "the state root " + root);
    }

    /**
     * The warm pool's lock (ROOT/pool.lock), held until closed: one fill or drain at a time, while
     * {@link #lock()} stays free for every other command (a fill waits for boots).
     */
    public AutoCloseable poolLock() throws VmException {
        return lock("pool.lock", root.resolve("pool.lock").toString());
    }

    private AutoCloseable lock(String file, String what) throws VmException {
        try {
            Files.createDirectories(root);
            FileChannel channel = FileChannel.open(root.resolve(file), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
            FileLock lock = channel.lock();
            return () -> {
                lock.release();
                channel.close();
            };
        } catch (IOException e) {
            throw new VmException("cannot lock " + what + ": " + e.getMessage(), e);
        }
    }

    /** A lock held until closed. */
    public interface Held extends AutoCloseable {
        @Override
        void close();
    }

    /**
     * Holds a shared lock on the pod's create.lock until closed: a create into the pod is under way.
     * Any number of creates share it; {@link #tryClaim} cannot have it meanwhile. The kernel drops the
     * lock of a call that dies, so a killed create never blocks anyone.
     */
    public Held creating(String pod) throws VmException {
        return podLock(pod, true).orElseThrow(() -> new VmException("pod \"" + pod + "\" is being removed"));
    }

    /** {@link #creating}, or empty while the pod is claimed for removal ({@link #tryClaim}). */
    public java.util.Optional<Held> tryCreating(String pod) throws VmException {
        return podLock(pod, true);
    }

    /**
     * The pod's create.lock held exclusively until closed, or empty while a create into the pod is
     * under way: what `pod prune` takes before it removes a pod that looks idle, so that a pod a create
     * has just made and not booted yet is never pruned from under it.
     */
    public java.util.Optional<Held> tryClaim(String pod) throws VmException {
        return podLock(pod, false);
    }

    private java.util.Optional<Held> podLock(String pod, boolean shared) throws VmException {
        Path file = podDir(pod).resolve("create.lock");
        try {
            Files.createDirectories(file.getParent());
            // read and write: a shared lock needs a readable channel, an exclusive one a writable one
            FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ,
                    StandardOpenOption.WRITE);
            FileLock lock = channel.tryLock(0, Long.MAX_VALUE, shared);
            if (lock == null) {
                channel.close();
                return java.util.Optional.empty();
            }
            return java.util.Optional.of(() -> {
                try {
                    channel.close(); // releases the lock
                } catch (IOException ignored) {
                    // the lock goes with the descriptor anyway
                }
            });
        } catch (java.nio.channels.OverlappingFileLockException e) {
            return java.util.Optional.empty(); // held in this JVM (an in-process test's other call)
        } catch (IOException e) {
            throw new VmException("cannot lock " + file + ": " + e.getMessage(), e);
        }
    }

    public List<PodRecord> pods() throws VmException {
        List<PodRecord> pods = new ArrayList<>();
        for (String name : names(root.resolve("pods"))) {
            pod(name).ifPresent(pods::add);
        }
        return pods;
    }

    public Optional<PodRecord> pod(String name) throws VmException {
        return read(podDir(name).resolve("pod.json"), StateFiles::pod);
    }

    /** Writes pod.json; a new pod gets its create.lock with it, so that no create adds a file to the pod. */
    public void write(PodRecord pod) throws VmException {
        write(podDir(pod.name()).resolve("pod.json"), RecordTrees.of(pod));
        Path lock = podDir(pod.name()).resolve("create.lock");
        try {
            if (!Files.exists(lock)) {
                Files.createFile(lock);
            }
        } catch (java.nio.file.FileAlreadyExistsException e) {
            // made by a racing call
        } catch (IOException e) {
            throw new VmException("cannot create " + lock + ": " + e.getMessage(), e);
        }
    }

    public List<ContainerRecord> containers(String pod) throws VmException {
        List<ContainerRecord> containers = new ArrayList<>();
        for (String name : names(podDir(pod).resolve("containers"))) {
            read(containerDir(pod, name).resolve("container.json"), StateFiles::container).ifPresent(containers::add);
        }
        return containers;
    }

    public List<ContainerRecord> containers() throws VmException {
        List<ContainerRecord> all = new ArrayList<>();
        for (PodRecord pod : pods()) {
            all.addAll(containers(pod.name()));
        }
        return all;
    }

    /** The container of that name in any pod (names are unique across pods). */
    public Optional<ContainerRecord> container(String name) throws VmException {
        Names.require(name, "container name");
        for (String pod : names(root.resolve("pods"))) {
            Optional<ContainerRecord> c = read(containerDir(pod, name).resolve("container.json"), StateFiles::container);
            if (c.isPresent()) {
                return c;
            }
        }
        return Optional.empty();
    }

    /** The container {@code name} of {@code pod}, if it has a state file. */
    public Optional<ContainerRecord> container(String pod, String name) throws VmException {
        return read(containerDir(pod, name).resolve("container.json"), StateFiles::container);
    }

    public void write(ContainerRecord container) throws VmException {
        write(containerDir(container.pod(), container.name()).resolve("container.json"), RecordTrees.of(container));
    }

    /**
     * Rewrites the state file of a container that still has one: false, and nothing written, when its
     * directory is gone (removed). The monitor's writes: a removal's directory must never come back.
     */
    public boolean update(ContainerRecord container) throws VmException {
        Path file = containerDir(container.pod(), container.name()).resolve("container.json");
        if (!Files.exists(file)) {
            return false;
        }
        try {
            replace(file, RecordTrees.of(container));
            return true;
        } catch (NoSuchFileException e) {
            return false; // removed meanwhile
        } catch (IOException e) {
            throw new VmException("cannot write " + file + ": " + e.getMessage(), e);
        }
    }

    /** The entries of a directory that can be pods' or containers' (what breaks the name rule is not ours). */
    private static List<String> names(Path dir) throws VmException {
        List<String> names = new ArrayList<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
            for (Path p : entries) {
                if (Names.valid(p.getFileName().toString())) {
                    names.add(p.getFileName().toString());
                }
            }
        } catch (NoSuchFileException e) {
            return names;
        } catch (IOException e) {
            throw new VmException("cannot read " + dir + ": " + e.getMessage(), e);
        }
        names.sort(null);
        return names;
    }

    /** How a state file's bytes become its record. */
    private interface Decoder<T> {
        T decode(byte[] json) throws IOException;
    }

    private static <T> Optional<T> read(Path file, Decoder<T> decoder) throws VmException {
        try {
            return Optional.of(decoder.decode(Files.readAllBytes(file)));
        } catch (NoSuchFileException e) {
            return Optional.empty();
        } catch (IOException e) {
            throw new VmException("state file " + file + " is unreadable: " + e.getMessage(), e);
        }
    }

    /**
     * The file's content replaced at once (a rename): a temporary file of this process and thread, since
     * a container's file has two writers (the CLI and the pod's monitor) that may write at the same time.
     */
    private static void replace(Path file, JsonNode tree) throws IOException {
        Path tmp = file.resolveSibling(file.getFileName() + "." + ProcessHandle.current().pid() + "."
                + Thread.currentThread().threadId() + ".tmp");
        try {
            Files.write(tmp, PrettyJson.of(tree).getBytes(StandardCharsets.UTF_8));
            Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            Files.deleteIfExists(tmp);
            throw e;
        }
    }

    /** The record's tree, as the mapper would write the record itself (RecordTrees, PrettyJson). */
    private static void write(Path file, JsonNode tree) throws VmException {
        try {
            Files.createDirectories(file.getParent());
            replace(file, tree);
        } catch (IOException e) {
            throw new VmException("cannot write state file " + file + ": " + e.getMessage(), e);
        }
    }

    /**
     * Removes the directory a call killed while it wrote a container's first record left behind: a
     * directory of that name, in any pod, with no container.json (at most the record's .tmp), which
     * no listing shows and so no rm could reach. The caller holds {@link #lock()}, under which every
     * first record is written whole: no live create's directory looks like this. (runc's delete
     * removes the directory of a create that died before its state.json the same way.)
     */
    public boolean removeUnrecordedContainer(String container) throws VmException {
        Names.require(container, "container name");
        boolean removed = false;
        for (String pod : names(root.resolve("pods"))) {
            Path dir = containerDir(pod, container);
            if (Files.isDirectory(dir, java.nio.file.LinkOption.NOFOLLOW_LINKS) && !Files.exists(dir.resolve("container.json"))) {
                removeContainer(pod, container);
                removed = true;
            }
        }
        return removed;
    }

    /**
     * The pods' directories with no pod.json: what a call killed while it wrote a new pod's record
     * (an anonymous pod's, whose name nobody knows) left behind. Read under {@link #lock()}, under
     * which every pod's first record is written whole.
     */
    public List<String> unrecordedPods() throws VmException {
        List<String> unrecorded = new ArrayList<>();
        for (String name : names(root.resolve("pods"))) {
            if (Files.isDirectory(podDir(name), java.nio.file.LinkOption.NOFOLLOW_LINKS) && !Files.exists(podDir(name).resolve("pod.json"))) {
                unrecorded.add(name);
            }
        }
        return unrecorded;
    }

    /** Removes a container's directory, and the pod's containers/ directory when it was the last. */
    public void removeContainer(String pod, String container) throws VmException {
        removeTree(containerDir(pod, container));
        try {
            Files.deleteIfExists(podDir(pod).resolve("containers"));
        } catch (java.nio.file.DirectoryNotEmptyException e) {
            // other containers remain
        } catch (IOException e) {
            throw new VmException("cannot remove " + podDir(pod).resolve("containers") + ": " + e.getMessage(), e);
        }
    }

    /** Removes a directory tree without following links (FileTrees); absent is fine. */
    public static void removeTree(Path dir) throws VmException {
        try {
            FileTrees.delete(dir);
        } catch (IOException e) {
            throw new VmException("cannot remove " + dir + ": " + e.getMessage(), e);
        }
    }
}
