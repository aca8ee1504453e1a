package io.jrunc.runtime.init;

import static io.jrunc.bindings.Mounts.*;

import io.jrunc.bindings.Errno;
import io.jrunc.bindings.ErrnoException;
import io.jrunc.bindings.FileDescriptors;
import io.jrunc.bindings.FsContext;
import io.jrunc.bindings.Mounts;
import io.jrunc.bindings.StatFs;
import io.jrunc.spec.LinuxDevice;
import io.jrunc.spec.Mount;
import io.jrunc.spec.Spec;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;

/**
 * Builds the container's root filesystem in the calling thread's private mount namespace and switches
 * the thread's root to it. The sequence follows runc's (libcontainer/rootfs_linux.go): make the whole
 * tree slave (or what rootfsPropagation asks) so nothing
 * propagates back to the host, bind the rootfs onto itself, mount the config's mounts with their
 * destinations resolved inside the rootfs, populate /dev, then pivot_root and detach the old root.
 * Masked and read-only paths are applied by {@link #finish} after the switch, on container paths.
 */
public final class RootfsBuilder {
    private final Spec spec;
    private final Path rootfs;
    private final CgroupMounts cgroupMounts;
    private final HostIds hostIds;

    public RootfsBuilder(Spec spec, Path rootfs, CgroupMounts cgroupMounts) {
        this(spec, rootfs, cgroupMounts, HostIds.IDENTITY);
    }

    /** @param hostIds the host's ids behind the container's, for what this thread makes with the container's ids */
    public RootfsBuilder(Spec spec, Path rootfs, CgroupMounts cgroupMounts, HostIds hostIds) {
        this.spec = spec;
        this.rootfs = rootfs;
        this.cgroupMounts = cgroupMounts;
        this.hostIds = hostIds;
    }

    /** The default devices every container gets (runtime-spec config-linux.md "Default Devices"). */
    private static final List<LinuxDevice> DEFAULT_DEVICES = List.of(
            device("/dev/null", 1, 3), device("/dev/zero", 1, 5), device("/dev/full", 1, 7),
            device("/dev/tty", 5, 0), device("/dev/random", 1, 8), device("/dev/urandom", 1, 9));

    private static LinuxDevice device(String path, long major, long minor) {
        return new LinuxDevice(path, "c", major, minor, 0666L, 0L, 0L);
    }

    /** A proc mount deferred until the container's pid 1 exists (see {@link ContainerFinisher}). */
    public record ProcMount(String destination, MountOptions options) {}

    /**
     * An O_PATH descriptor of the mount a config entry made, taken right after it was made, and that
     * mount's path in the container: {@link MountOrder} copies the mount through it even where a later
     * entry covers it.
     */
    public record MountHandle(String destination, int fd) {}

    /**
     * What {@link #prepare} leaves for later: the proc mounts, the container path of the exec gate, and
     * a handle on each config mount listed after the first proc mount.
     */
    public record Prepared(List<ProcMount> procMounts, String gatePath, List<MountHandle> handles) {
        /** Where procfs will be (each a placeholder until the child exists), as container paths. */
        public List<String> procDestinations() {
            List<String> out = new ArrayList<>(procMounts.size());
            for (ProcMount m : procMounts) {
                out.add(m.destination());
            }
            return out;
        }

        /** Closes the handles (the child never has them: they are close-on-exec and it closes the rest). */
        public void closeHandles() {
            for (MountHandle h : handles) {
                FileDescriptors.closeQuietly(h.fd());
            }
        }
    }

    /** The source of the tmpfs that holds a proc mount's place until procfs can be made. */
    static final String PROC_PLACEHOLDER = "jrunc-proc";

    private final List<ProcMount> procMounts = new ArrayList<>();
    private final List<MountHandle> handles = new ArrayList<>();
    private String gate;
    private IdmappedBinds idmapped;

    /**
     * Everything up to and including the switch of root, every mount in the config's order. A proc
     * mount needs the container's PID 1, which exists only after the spawn: at its turn a small tmpfs
     * (source {@value #PROC_PLACEHOLDER}) holds its place, and {@link MountOrder} later puts procfs there
     * and makes every mount listed after it again, so that they follow procfs as the config lists them.
     *
     * <p>The first placeholder also holds the exec gate: {@code execFifo} (the host path of the exec
     * FIFO) is bound into it so that the container process can open it by a path inside its root, and
     * block there until start. The tmpfs is searchable by all (0711) because the process opens the FIFO
     * after switching to the container's user. The FIFO's place in the tmpfs is {@code self/fd/GATE_FD},
     * the path under which the real procfs shows the process's own descriptor {@code gateFd}: the
     * process first opens it O_PATH at that number, then for writing, which blocks. If the blocked open
     * is interrupted and restarted after the real procfs is mounted (the freezer does this when a
     * created container is paused and resumed), the same path now resolves through procfs to the
     * process's O_PATH descriptor, the FIFO, instead of to nothing.
     */
    public Prepared prepare(boolean noPivot, Path execFifo, int gateFd) {
        long propagation = rootPropagation();
        Mounts.mount(null, "/", null, propagation, null);
        makeParentPrivate();
        Mounts.mount(rootfs.toString(), rootfs.toString(), "bind", MS_BIND | MS_REC, null);
        boolean devIsMounted = false;
        try {
            if (spec.mounts() != null) {
                for (int i = 0; i < spec.mounts().size(); i++) {
                    Mount m = spec.mounts().get(i);
                    Path dest = mount(m, "mounts[" + i + "]", execFifo, gateFd);
                    if (!procMounts.isEmpty() && !"proc".equals(m.type())) {
                        String inContainer = "/" + rootfs.relativize(dest);
                        handles.add(new MountHandle(inContainer, FileDescriptors.open(dest.toString(),
                                FileDescriptors.O_PATH | FileDescriptors.O_CLOEXEC)));
                    }
                    if ("/dev".equals(clean(m.destination())) && !MountOptions.parse(m.options(), "").isBind()) {
                        devIsMounted = true;
                    }
                }
            }
            if (devIsMounted) {
                createDevices();
            }
            createDevSymlinks();
            if (procMounts.isEmpty()) {
                throw new IllegalArgumentException("mounts: a proc mount is required");
            }
            if (noPivot) {
                // --no-pivot: move the rootfs over / and chroot, for ramdisk roots where pivot_root fails.
                FsContext.chdir(rootfs.toString());
                Mounts.mount(rootfs.toString(), "/", null, MS_MOVE, null);
                FsContext.chroot(".");
            } else {
                pivotRoot();
            }
            FsContext.chdir("/");
            if (spec.linux() != null && spec.linux().rootfsPropagation() != null && !spec.linux().rootfsPropagation().isEmpty()) {
                // Once more on the container's own root, as runc does: the call above set it on the host
                // tree's copy, and the rootfs, bind-mounted onto itself, became the root with its own
                // propagation ("unbindable" must refuse a bind of / inside the container).
                Mounts.mount(null, "/", null, propagation, null);
            }
        } catch (RuntimeException | Error e) {
            new Prepared(List.of(), gate, handles).closeHandles();
            throw e;
        } finally {
            if (idmapped != null) {
                idmapped.close();
            }
        }
        return new Prepared(List.copyOf(procMounts), gate, List.copyOf(handles));
    }

    /**
     * A proc mount's placeholder: an empty tmpfs, and in the first one the exec gate (see
     * {@link #prepare}).
     */
    private void procPlaceholder(Path dest, MountOptions options, Path execFifo, int gateFd) {
        boolean first = procMounts.isEmpty();
        procMounts.add(new ProcMount("/" + rootfs.relativize(dest), options));
        Mounts.mount(PROC_PLACEHOLDER, dest.toString(), "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, "mode=711,size=4k");
        if (!first) {
            return;
        }
        gate = procMounts.getFirst().destination() + "/self/fd/" + gateFd;
        Path gateDir = dest.resolve("self").resolve("fd");
        try {
            Files.createDirectories(gateDir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx--x--x")));
        } catch (IOException e) {
            throw new UncheckedIOException("creating the exec gate's directory", e);
        }
        createFile(gateDir.resolve(Integer.toString(gateFd)));
        Mounts.mount(execFifo.toString(), gateDir.resolve(Integer.toString(gateFd)).toString(), null, MS_BIND, null);
    }

    private long rootPropagation() {
        String p = spec.linux() == null ? null : spec.linux().rootfsPropagation();
        if (p == null || p.isEmpty()) {
            return MS_SLAVE | MS_REC;
        }
        return switch (p) {
            case "private" -> MS_PRIVATE;
            case "rprivate" -> MS_PRIVATE | MS_REC;
            case "slave" -> MS_SLAVE;
            case "rslave" -> MS_SLAVE | MS_REC;
            case "shared" -> MS_SHARED;
            case "rshared" -> MS_SHARED | MS_REC;
            case "unbindable" -> MS_UNBINDABLE;
            case "runbindable" -> MS_UNBINDABLE | MS_REC;
            default -> throw new IllegalArgumentException("linux.rootfsPropagation: unknown propagation \"" + p + "\"");
        };
    }

    /**
     * pivot_root refuses a new root whose parent mount is shared, so the mount that holds the rootfs is
     * made private (runc: rootfsParentMountPrivate). Only this thread's namespace sees the change.
     */
    private void makeParentPrivate() {
        Path mountPoint = MountTable.mountPointOf(rootfs);
        try {
            Mounts.mount(null, mountPoint.toString(), null, MS_PRIVATE, null);
        } catch (ErrnoException e) {
            if (!e.is(Errno.EINVAL)) {
                throw e;
            }
        }
    }

    /** Makes one config entry (a proc entry's placeholder) and returns its destination on the host. */
    private Path mount(Mount m, String where, Path execFifo, int gateFd) {
        if (m.destination() == null || !m.destination().startsWith("/")) {
            throw new IllegalArgumentException(where + ".destination: must be an absolute path");
        }
        MountOptions options = MountOptions.parse(m.options(), where + ".options");
        String type = m.type() == null ? "" : m.type();
        boolean bind = options.isBind() || type.equals("bind");
        Path dest = ScopedPath.resolve(rootfs, m.destination());
        if (type.equals("proc")) {
            createDirectory(dest);
            procPlaceholder(dest, options, execFifo, gateFd);
            return dest;
        }
        if (type.equals("cgroup") || type.equals("cgroup2")) {
            createDirectory(dest);
            cgroupMounts.mount(dest, options, type);
            return dest;
        }
        if (bind) {
            String source = m.source();
            if (source == null || source.isEmpty()) {
                throw new IllegalArgumentException(where + ".source: a bind mount needs a source");
            }
            Path src = Path.of(source);
            if (!Files.exists(src)) {
                throw new IllegalArgumentException(where + ".source: " + source + " does not exist");
            }
            if (Files.isDirectory(src)) {
                createDirectory(dest);
            } else {
                createFile(dest);
            }
            if (IdmappedBinds.isIdmapped(m, options)) {
                if (idmapped == null) {
                    idmapped = new IdmappedBinds(spec);
                }
                idmapped.mount(m, options, dest, where);
            } else {
                Mounts.mount(source, dest.toString(), "bind", MS_BIND | (options.recursiveBind() ? MS_REC : 0), null);
            }
            long cleared = MountOptions.clearedFlags(m.options());
            if (options.remountFlags() != 0 || cleared != 0) {
                LockedFlags.remountBind(where, source, dest, options.remountFlags(), cleared);
            }
        } else {
            createDirectory(dest);
            String data = hostIds.mountData(type, options.data().isEmpty() ? null : options.data(), where + ".options");
            String source = m.source() == null || m.source().isEmpty() ? type : m.source();
            if (options.copyUp()) {
                if (!type.equals("tmpfs")) {
                    throw new IllegalArgumentException(where + ".options: tmpcopyup needs a tmpfs mount");
                }
                TmpfsCopyUp.mount(source, dest, options.flags(), data);
                return dest;
            }
            try {
                Mounts.mount(source, dest.toString(), type, options.flags(), data);
            } catch (ErrnoException e) {
                // sysfs cannot be mounted in a network namespace the thread does not own; runc falls back
                // to a recursive bind of the host's /sys for the same reason.
                if (type.equals("sysfs") && e.is(Errno.EPERM)) {
                    Mounts.mount("/sys", dest.toString(), null, MS_BIND | MS_REC, null);
                    LockedFlags.remountBind(where, "/sys", dest, MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, 0);
                } else {
                    throw e;
                }
            }
        }
        for (long propagation : options.propagation()) {
            Mounts.mount(null, dest.toString(), null, propagation, null);
        }
        return dest;
    }

    /**
     * Flags the kernel keeps on a remount of a bind mount only if repeated (nosuid, nodev, noexec and
     * the atime flags of the mount being remounted); read from the mount table.
     */
    static long lockedFlags(Path mountPoint) {
        return StatFs.mountFlags(mountPoint.toString()) & (MS_NOSUID | MS_NODEV | MS_NOEXEC | MS_NOATIME | MS_NODIRATIME | MS_RELATIME);
    }

    /**
     * A device the kernel will not let the container make: an empty file with the host's node of the
     * same path bound onto it, as runc and crun do in a user namespace (mknod of a device needs
     * CAP_MKNOD in the initial one). The node keeps the host's owner and mode.
     */
    private static void bindDevice(LinuxDevice d, Path dest) {
        if (!Files.exists(Path.of(d.path()))) {
            throw new IllegalArgumentException("linux.devices: " + d.path() + " cannot be made in a user namespace"
                    + " and the host has no node at that path to bind");
        }
        createFile(dest);
        Mounts.mount(d.path(), dest.toString(), "bind", MS_BIND, null);
    }

    private void createDevices() {
        // In a user namespace other than the initial one mknod of a device always fails (EPERM):
        // bind from the start rather than try each node.
        boolean bindDevices = ContainerFinisher.inUserNamespace();
        List<LinuxDevice> devices = new ArrayList<>(DEFAULT_DEVICES);
        if (spec.linux() != null && spec.linux().devices() != null) {
            devices.addAll(spec.linux().devices());
        }
        int old = FsContext.umask(0);
        try {
            for (LinuxDevice d : devices) {
                Path dest = ScopedPath.resolve(rootfs, d.path());
                createDirectory(dest.getParent());
                try {
                    Files.deleteIfExists(dest);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
                int kind = switch (d.type()) {
                    case "c", "u" -> FileDescriptors.S_IFCHR;
                    case "b" -> FileDescriptors.S_IFBLK;
                    case "p" -> FileDescriptors.S_IFIFO;
                    default -> throw new IllegalArgumentException("linux.devices: unknown device type " + d.type());
                };
                int mode = d.fileMode() == null ? 0666 : d.fileMode().intValue();
                long major = d.major() == null ? 0 : d.major();
                long minor = d.minor() == null ? 0 : d.minor();
                if (bindDevices) {
                    bindDevice(d, dest);
                    continue;
                }
                try {
                    FileDescriptors.mknod(dest.toString(), kind | (mode & 07777), FileDescriptors.makedev(major, minor));
                } catch (ErrnoException e) {
                    if (!e.is(Errno.EPERM)) {
                        throw e;
                    }
                    bindDevices = true; // the kernel refuses device nodes here: every later one is a bind too
                    bindDevice(d, dest);
                    continue;
                }
                FileDescriptors.chown(dest.toString(), hostIds.uid(d.uid() == null ? 0 : d.uid()),
                        hostIds.gid(d.gid() == null ? 0 : d.gid()));
            }
        } finally {
            FsContext.umask(old);
        }
    }

    /** The standard /dev symlinks (runtime-spec runtime-linux.md "Dev symbolic links"). */
    private void createDevSymlinks() {
        Path dev = ScopedPath.resolve(rootfs, "/dev");
        if (!Files.isDirectory(dev)) {
            return;
        }
        ScopedLinks.link(dev.resolve("fd"), "/proc/self/fd");
        ScopedLinks.link(dev.resolve("stdin"), "/proc/self/fd/0");
        ScopedLinks.link(dev.resolve("stdout"), "/proc/self/fd/1");
        ScopedLinks.link(dev.resolve("stderr"), "/proc/self/fd/2");
        if (Files.exists(Path.of("/proc/kcore"))) {
            ScopedLinks.link(dev.resolve("core"), "/proc/kcore");
        }
        if (Files.isDirectory(dev.resolve("pts")) && !Files.exists(dev.resolve("ptmx"), LinkOption.NOFOLLOW_LINKS)) {
            ScopedLinks.link(dev.resolve("ptmx"), "pts/ptmx");
        }
    }

    /**
     * pivot_root(".", ".") stacks the old root on the new one; detaching it leaves only the rootfs. The
     * old root is made rslave first so the detach cannot propagate to the host's mounts.
     */
    private void pivotRoot() {
        FsContext.chdir(rootfs.toString());
        Mounts.pivotRoot(".", ".");
        Mounts.mount(null, ".", null, MS_SLAVE | MS_REC, null);
        Mounts.umount(".", MNT_DETACH);
    }

    /**
     * Masked paths, read-only paths and a read-only root, on container paths: run by a thread whose
     * root is the container's, after the real procfs is in place (most masked paths are in /proc).
     */
    public static void finish(Spec spec) {
        if (spec.linux() != null) {
            if (spec.linux().maskedPaths() != null) {
                for (String p : spec.linux().maskedPaths()) {
                    mask(p);
                }
            }
            if (spec.linux().readonlyPaths() != null) {
                for (String p : spec.linux().readonlyPaths()) {
                    readonly(p);
                }
            }
        }
        if (spec.root() != null && Boolean.TRUE.equals(spec.root().readonly())) {
            Mounts.mount(null, "/", null, MS_BIND | MS_REMOUNT | MS_RDONLY | lockedFlags(Path.of("/")), null);
        }
    }

    /** A masked directory gets an empty read-only tmpfs, a masked file /dev/null; missing paths are fine. */
    private static void mask(String path) {
        Path p = Path.of(path);
        if (!Files.exists(p, LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        if (Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)) {
            Mounts.mount("tmpfs", path, "tmpfs", MS_RDONLY, null);
        } else {
            Mounts.mount("/dev/null", path, null, MS_BIND, null);
        }
    }

    private static void readonly(String path) {
        Path p = Path.of(path);
        if (!Files.exists(p, LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        Mounts.mount(path, path, null, MS_BIND | MS_REC, null);
        Mounts.mount(null, path, null, MS_BIND | MS_REMOUNT | MS_RDONLY | MS_REC | lockedFlags(p), null);
    }

    static void createDirectory(Path dir) {
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException("mkdir " + dir, e);
        }
    }

    private static void createFile(Path file) {
        try {
            if (!Files.exists(file)) {
                Files.createDirectories(file.getParent());
                Files.createFile(file);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("create " + file, e);
        }
    }

    private static String clean(String path) {
        return path == null ? null : Path.of(path).normalize().toString();
    }
}
