package io.jrunc.runtime;

import io.jrunc.bindings.ErrnoException;
import io.jrunc.bindings.FileDescriptors;
import io.jrunc.bindings.Processes;
import io.jrunc.bindings.Signals;
import io.jrunc.bindings.UnixSockets;
import io.jrunc.cgroups.Cgroup;
import io.jrunc.cgroups.CgroupException;
import io.jrunc.cgroups.CgroupMode;
import io.jrunc.cgroups.CgroupsPath;
import io.jrunc.cgroups.ChildPlacement;
import io.jrunc.runtime.init.ChainSpawn;
import io.jrunc.runtime.init.ChildCgroupEntry;
import io.jrunc.runtime.init.ChildReport;
import io.jrunc.runtime.init.ChildStatus;
import io.jrunc.runtime.init.ChildWaits;
import io.jrunc.runtime.init.ContainerFinisher;
import io.jrunc.runtime.init.ContainerInit;
import io.jrunc.runtime.init.ExecutableLookup;
import io.jrunc.runtime.init.FilterCompilation;
import io.jrunc.runtime.init.HostIds;
import io.jrunc.runtime.init.NamespaceHolder;
import io.jrunc.runtime.init.NamespacePlan;
import io.jrunc.runtime.init.SpawnThread;
import io.jrunc.spec.ContainerStatus;
import io.jrunc.spec.Spec;
import io.jrunc.spec.SpecException;
import io.jrunc.spec.SpecLoader;
import io.jrunc.spec.State;
import io.jrunc.spec.UtcText;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;

/**
 * `create`: validates the bundle, then builds the container and leaves its process waiting at the
 * exec gate, in its namespaces and cgroup, with the state written and the pid file in place.
 *
 * <p>Either the whole container exists afterwards or nothing does: any failure kills the process,
 * removes the cgroup and the state directory (with the FIFO in it) before the error is reported.
 * Mounts need no undoing; they live only in the container's mount namespace, which dies with its
 * last process.
 */
public final class ContainerCreator {
    private ContainerCreator() {}

    private static final long SPAWN_TIMEOUT_MILLIS = 60_000;

    public static Container create(Path root, CreateOptions options, boolean systemdCgroup) {
        return create(root, options, systemdCgroup, loadBundle(options.id(), options.bundle()));
    }

    /**
     * The first checks of create, in runc's order (the ID, the bundle directory, its config), for a
     * caller that needs the config before creating (`run` asks whether it wants a terminal).
     */
    public static Spec loadBundle(String id, Path bundleDir) {
        ContainerId.validate(id);
        Path bundle = bundleDir.toAbsolutePath().normalize();
        if (!Files.isDirectory(bundle)) {
            throw new ContainerException("chdir " + bundle + ": no such file or directory");
        }
        return load(bundle);
    }

    /** create with the config already loaded by {@link #loadBundle}. */
    public static Container create(Path root, CreateOptions options, boolean systemdCgroup, Spec spec) {
        Path bundle = options.bundle().toAbsolutePath().normalize();
        refuseUnsupported(spec, systemdCgroup);
        io.jrunc.runtime.init.SetgroupsDenial.read();
        FilterCompilation filter = ContainerSeccomp.startCompile(spec, root);
        boolean terminal = Boolean.TRUE.equals(spec.process().terminal());
        if (terminal && options.consoleSocket() == null && options.consoleFd() < 0) {
            throw new ContainerException("cannot allocate tty if runc will detach without setting console socket");
        }
        if (!terminal && options.consoleSocket() != null) {
            throw new ContainerException("cannot use console socket if runc will not detach or allocate tty");
        }
        Path rootfs;
        try {
            rootfs = bundle.resolve(spec.root().path()).toRealPath();
        } catch (IOException e) {
            throw new ContainerException("rootfs (" + bundle.resolve(spec.root().path()) + ") does not exist");
        }
        NamespacePlan namespaces;
        try {
            namespaces = NamespacePlan.of(spec);
            if (namespaces.creates(io.jrunc.bindings.Namespaces.CLONE_NEWUSER)) {
                // known before anything is made; a namespace joined by path is checked once joined
                HostIds.of(spec.linux().uidMappings(), spec.linux().gidMappings())
                        .requireMapped(spec.process().user(), "process");
            }
        } catch (IllegalArgumentException e) {
            throw new ContainerException(e.getMessage());
        }

        // Until it execs, the container's process shares this JVM's address space (it is cloned with
        // CLONE_VM) and may be visible to processes of a pid namespace it joins: a dumpable mm would let
        // them ptrace or read /proc/PID/mem of the runtime.
        io.jrunc.bindings.Prctl.setDumpable(false);
        ContainerDirectory dir = ContainerDirectory.create(root, options.id());
        Cgroup cgroup = null;
        int consoleFd = -1;
        int pid = -1;
        ChildPlacement placement = null;
        int[] cgroupGate = null;
        int[] createGate = null;
        ChildReport report = new ChildReport();
        ContainerInit init = null;
        NamespaceHolder holder = null;
        try {
            // recorded before a directory is made: a create killed from here on is undone by delete
            String cgroupsPath = spec.linux() == null ? null : spec.linux().cgroupsPath();
            CgroupsPath path = CgroupsPath.of(cgroupsPath, options.id(), systemdCgroup);
            cgroup = Rootless.cgroups()
                    ? Cgroup.createRootless(path, cgroupsPath != null && !cgroupsPath.isEmpty(),
                            location -> CreateJournal.recordCgroup(dir.path(), location))
                    : Cgroup.create(path, location -> CreateJournal.recordCgroup(dir.path(), location));
            // A long-lived creator (the guest agent) moves the child instead of itself.
            boolean moveChild = options.cgroupEntry() == ChildCgroupEntry.CHILD_MOVED
                    && cgroup.mode() == CgroupMode.UNIFIED;
            if (moveChild) {
                cgroupGate = FileDescriptors.pipe(FileDescriptors.O_CLOEXEC);
            } else {
                // The JVM's move into the container's v2 cgroup waits for an RCU grace period: started
                // now, it runs while the FIFO, the console and the spawning thread are prepared.
                placement = cgroup.beginPlacement();
            }
            Path fifo = dir.execFifo();
            FileDescriptors.mkfifo(fifo.toString(), 0622);
            Files.setPosixFilePermissions(fifo, PosixFilePermissions.fromString("rw--w--w-"));
            if (options.consoleSocket() != null) {
                consoleFd = UnixSockets.connect(options.consoleSocket().toString());
            } else if (options.consoleFd() >= 0) {
                consoleFd = FileDescriptors.dup(options.consoleFd());
            }

            createGate = FileDescriptors.pipe(FileDescriptors.O_CLOEXEC);
            init = new ContainerInit(spec, rootfs, fifo, namespaces, cgroup, placement, options.noPivot(),
                    consoleFd, options.preserveFds(), options.noNewKeyring() ? null : "_ses." + options.id(), filter, options.stdio(),
                    cgroupGate == null ? -1 : cgroupGate[0], createGate[0], report);
            SpawnThread thread = new SpawnThread("jrunc-init", init).start();
            try {
                pid = thread.awaitChild(SPAWN_TIMEOUT_MILLIS);
                if (cgroupGate != null) {
                    // the child waits on the pipe: into its cgroup, then on its way
                    cgroup.addProcess(pid);
                    FileDescriptors.write(cgroupGate[1], new byte[] {1});
                }
                thread.awaitCreateGate(report, SPAWN_TIMEOUT_MILLIS);
                holder = init.holder();
            } finally {
                if (placement != null) {
                    placement.close();
                    placement = null;
                }
            }
            // Limits are applied once the JVM is out of the cgroup again (on cgroup v2 the placement
            // moved the whole JVM in, and its threads and memory would count against them), and
            // before the process runs a single instruction of its own.
            cgroup.apply(DeviceRules.resourcesOf(spec));
            ContainerFinisher.finish(spec, pid, init.prepared());
            // The child still has the runtime's identity at the create gate (it takes its own after it),
            // as runc's init sets the limits before it changes user.
            Rlimits.apply(pid, 0, 0, spec.process().rlimits());
            Integer oomScoreAdj = spec.process().oomScoreAdj();
            if (oomScoreAdj == null && cgroupGate != null) {
                oomScoreAdj = 0; // a long-lived creator's own (the guest agent's -999) is not the container's
            }
            if (oomScoreAdj != null) {
                Files.writeString(Path.of("/proc", Integer.toString(pid), "oom_score_adj"), oomScoreAdj.toString());
            }
            // Owned by the process's ids as the host sees them (in a user namespace: the mapped ids),
            // before the process, which opens it for writing after the create gate, takes them.
            HostIds hostIds = init.hostIds();
            FileDescriptors.chown(fifo.toString(), hostIds.uid(uid(spec)), hostIds.gid(gid(spec)));
            // The root is final: the child enters its working directory, takes its identity and waits
            // at the exec gate, where what it did is checked.
            FileDescriptors.write(createGate[1], new byte[] {1});
            thread.awaitGate(pid, SPAWN_TIMEOUT_MILLIS);
            if (!namespaces.has(io.jrunc.bindings.Namespaces.CLONE_NEWNS)) {
                io.jrunc.runtime.init.SharedMountNamespace.verify(pid);
            }
            int chdir = report.chdirError();
            if (chdir != 0) {
                throw new ContainerException("unable to start container process: error during container init: "
                        + ChildReport.chdirMessage(spec.process().cwd(), chdir));
            }
            ChildStatus.verify(pid, init.expected());
            if (holder != null) {
                // the process is in the user namespace and its pid namespace has its PID 1
                holder.close();
            }
            if (filter != null && filter.usesNotify()) {
                ContainerSeccomp.sendListener(spec.linux().seccomp(), pid,
                        ChainSpawn.listenerFd(options.preserveFds(), false), new State(spec.ociVersion(),
                                options.id(), ContainerStatus.CREATING, pid, bundle.toString(), spec.annotations()));
            }
            ProcStat stat = ProcStat.read(pid);
            if (stat == null || !stat.alive()) {
                throw new ContainerException("container init exited during create");
            }
            ContainerState state = new ContainerState(options.id(), pid, stat.startTime(), spec.ociVersion(),
                    bundle.toString(), rootfs.toString(), UtcText.of(Instant.now()), "", spec.annotations(),
                    Hooks.present(spec.hooks()), cgroup.location());
            Files.copy(bundle.resolve(SpecLoader.CONFIG_FILE), dir.config());
            dir.write(state);
            CreateJournal.done(dir.path());
            Container container = Container.of(dir, state, spec);
            Hooks.created(container);
            if (options.pidFile() != null) {
                PidFile.write(options.pidFile(), pid);
            }
            return container;
        } catch (Throwable t) {
            NamespaceHolder started = holder != null ? holder : init == null ? null : init.holder();
            if (started != null) {
                started.close();
            }
            undo(dir, cgroup, pid, placement);
            throw failure(t);
        } finally {
            if (filter != null) {
                filter.finish(); // a new program kept in the cache, whole, before the JVM exits
            }
            FileDescriptors.closeQuietly(consoleFd);
            if (cgroupGate != null) {
                FileDescriptors.closeQuietly(cgroupGate[0]);
                FileDescriptors.closeQuietly(cgroupGate[1]);
            }
            if (createGate != null) {
                FileDescriptors.closeQuietly(createGate[0]);
                FileDescriptors.closeQuietly(createGate[1]);
            }
            // the child is at the exec gate, past its last report, or killed and waited for by undo
            report.close();
        }
    }

    static Spec load(Path bundle) {
        if (!Files.isRegularFile(bundle.resolve(SpecLoader.CONFIG_FILE))) {
            throw new ContainerException("JSON specification file config.json not found");
        }
        try {
            return SpecLoader.load(bundle);
        } catch (SpecException e) {
            throw new ContainerException(e.getMessage());
        }
    }

    private static long uid(Spec spec) {
        return spec.process().user() == null || spec.process().user().uid() == null ? 0 : spec.process().user().uid();
    }

    private static long gid(Spec spec) {
        return spec.process().user() == null || spec.process().user().gid() == null ? 0 : spec.process().user().gid();
    }

    /** Settings jrunc cannot honour yet are refused: security settings are never silently ignored. */
    static void refuseUnsupported(Spec spec, boolean systemdCgroup) {
        if (systemdCgroup) {
            throw new ContainerException("--systemd-cgroup: systemd cgroup management is not supported by jrunc yet");
        }
        if (spec.process() == null) {
            throw new ContainerException("process: must be set");
        }
        // The kernel takes time namespace offsets only through /proc/PID/timens_offsets of the thread
        // group leader, which no JVM thread is (java runs main() on a thread of its own).
        if (spec.linux() != null && spec.linux().timeOffsets() != null && !spec.linux().timeOffsets().isEmpty()) {
            throw new ContainerException("linux.timeOffsets: time namespace offsets are not supported by jrunc yet");
        }
        // Mandatory access control labels are security settings: refused, never silently dropped.
        if (spec.process().apparmorProfile() != null && !spec.process().apparmorProfile().isEmpty()) {
            throw new ContainerException("process.apparmorProfile: AppArmor is not supported by jrunc yet");
        }
        if (spec.process().selinuxLabel() != null && !spec.process().selinuxLabel().isEmpty()) {
            throw new ContainerException("process.selinuxLabel: SELinux is not supported by jrunc yet");
        }
        if (spec.linux() != null && spec.linux().mountLabel() != null && !spec.linux().mountLabel().isEmpty()) {
            throw new ContainerException("linux.mountLabel: SELinux is not supported by jrunc yet");
        }
        try {
            io.jrunc.runtime.init.IdmappedBinds.refuse(spec, () -> Rootless.unprivileged() || Rootless.inUserNamespace());
        } catch (IllegalArgumentException e) {
            throw new ContainerException(e.getMessage());
        }
    }

    private static void undo(ContainerDirectory dir, Cgroup cgroup, int pid, ChildPlacement placement) {
        if (placement != null) {
            try {
                placement.close();
            } catch (CgroupException | RuntimeException ignored) {
                // best effort; the cgroup removal below reports what is left
            }
        }
        if (pid > 0) {
            try {
                Processes.kill(pid, Signals.SIGKILL);
                ChildWaits.waitpid(pid, 0);
            } catch (ErrnoException ignored) {
                // already gone
            }
        }
        if (cgroup != null) {
            try {
                cgroup.destroy();
            } catch (CgroupException | RuntimeException e) {
                Log.warn("removing cgroup after failed create: " + e.getMessage());
            }
        }
        dir.remove();
        dir.close();
    }

    /** The caller's view of a create failure, in runc's words where callers match them. */
    static ContainerException failure(Throwable t) {
        if (t instanceof ContainerException c) {
            return c;
        }
        if (t instanceof io.jrunc.seccomp.SeccompException e) {
            return new ContainerException(e.getMessage(), e);
        }
        if (t instanceof ExecutableLookup.ExecutableNotFound e) {
            return new ContainerException("unable to start container process: " + e.getMessage(), e);
        }
        if (t instanceof ErrnoException e) {
            return new ContainerException("unable to start container process: error during container init: "
                    + e.goStyle(), e);
        }
        if (t instanceof CgroupException e) {
            return new ContainerException("unable to apply cgroup configuration: " + e.getMessage(), e);
        }
        if (t instanceof IllegalArgumentException e) {
            return new ContainerException(e.getMessage(), e);
        }
        if (t instanceof UncheckedIOException e) {
            String cause = e.getCause() == null ? "" : ": " + e.getCause().getMessage();
            return new ContainerException("unable to start container process: " + e.getMessage() + cause, e);
        }
        if (t instanceof NoSuchFileException e) {
            return new ContainerException("no such file or directory: " + e.getFile(), e);
        }
        return new ContainerException("unable to start container process: " + t, t);
    }
}
