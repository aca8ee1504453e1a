package io.jrunc.runtime.init;

import static io.jrunc.bindings.Namespaces.*;

import io.jrunc.bindings.FileDescriptors;
import io.jrunc.bindings.FsContext;
import io.jrunc.bindings.Namespaces;
import io.jrunc.bindings.Uts;
import io.jrunc.cgroups.Cgroup;
import io.jrunc.cgroups.ChildPlacement;
import io.jrunc.spec.Spec;
import java.io.IOException;
import java.nio.file.Path;

/**
 * What the container thread does for `create`, in order (docs/runtime.md): own fs context; join
 * namespaces given by path; enter the cgroup (so a new cgroup namespace is rooted there); with a user
 * namespace, start its {@link NamespaceHolder} and join the namespaces it made, owned by the user
 * namespace; create the other namespaces; build the rootfs and pivot_root; hostname; the process's executable and cwd; the
 * terminal; then spawn the child's chain, which waits at the create gate until the root is final, and
 * then enters the working directory, takes its credentials and waits at the exec gate.
 *
 * <p>The pid namespace is unshared last: from then on the thread may not create threads, and it
 * applies to the next child, which becomes PID 1.
 */
public final class ContainerInit implements SpawnThread.Body {
    private final Spec spec;
    private final Path rootfs;
    private final Path execFifo;
    private final NamespacePlan namespaces;
    private final Cgroup cgroup;
    private final boolean noPivot;
    private final int consoleSocket;
    private final int preserveFds;
    private final String newKeyring;
    private final ChildPlacement placement;
    private final FilterCompilation filter;
    private final ProcessSpawn spawn;
    private final SpawnRequest.Stdio stdio;
    private final int cgroupGate;
    private final int createGate;
    private volatile RootfsBuilder.Prepared prepared;
    private volatile NamespaceHolder holder;
    private volatile HostIds hostIds;
    private int userNamespace = -1;

    /**
     * @param placement begun by the creating thread ({@link Cgroup#beginPlacement}), which closes it
     * @param filter the compiled linux.seccomp, or null: with one, the child is made by a {@link ChainSpawn}
     * @param stdio the process's standard streams ({@link SpawnRequest.Stdio#INHERIT}: the runtime's)
     * @param cgroupGate -1, or the read end of the pipe the child waits on until the creating thread has
     *        moved it into its cgroup ({@link ChildCgroupEntry}); then {@code placement} is null, this
     *        thread never enters the container's cgroup, and the child creates the cgroup namespace
     * @param createGate the read end of the pipe the child waits on until the root is final (procfs in
     *        place, the mounts after it made again), before it enters its working directory
     * @param report where the child says it waits at the create gate and how its chdirs went
     */
    public ContainerInit(Spec spec, Path rootfs, Path execFifo, NamespacePlan namespaces, Cgroup cgroup,
            ChildPlacement placement, boolean noPivot, int consoleSocket, int preserveFds, String newKeyring,
            FilterCompilation filter, SpawnRequest.Stdio stdio, int cgroupGate, int createGate, ChildReport report) {
        this.cgroupGate = cgroupGate;
        this.createGate = createGate;
        this.spec = spec;
        this.stdio = stdio;
        this.rootfs = rootfs;
        this.execFifo = execFifo;
        this.namespaces = namespaces;
        this.cgroup = cgroup;
        this.placement = placement;
        this.noPivot = noPivot;
        this.consoleSocket = consoleSocket;
        this.preserveFds = preserveFds;
        this.newKeyring = newKeyring;
        this.filter = filter;
        this.spawn = new ProcessSpawn(filter, cgroupGate, cgroupGate >= 0 && namespaces.creates(CLONE_NEWCGROUP),
                report);
        this.hostIds = namespaces.creates(CLONE_NEWUSER)
                ? HostIds.of(spec.linux().uidMappings(), spec.linux().gidMappings()) : HostIds.IDENTITY;
    }

    /** What the child must show in /proc/PID/status ({@link ChildStatus}), once it is spawning. */
    public ChildStatus.Expected expected() {
        return spawn.expected();
    }

    /** What the rootfs step left for the finisher; valid once the child exists. */
    public RootfsBuilder.Prepared prepared() {
        return prepared;
    }

    @Override
    public int run(SpawnThread self) throws Exception {
        try {
            return build(self);
        } catch (Throwable t) {
            NamespaceHolder h = holder;
            if (h != null) {
                h.close();
            }
            throw t;
        } finally {
            FileDescriptors.closeQuietly(userNamespace);
        }
    }

    private int build(SpawnThread self) throws Exception {
        spawn.awaitFilter();
        FsContext.unshare();
        for (NamespacePlan.Join join : namespaces.joins()) {
            int fd = FileDescriptors.open(join.path(), FileDescriptors.O_RDONLY | FileDescriptors.O_CLOEXEC);
            try {
                Namespaces.setns(fd, join.flag(), join.path());
            } finally {
                FileDescriptors.close(fd);
            }
        }
        boolean childMoved = cgroupGate >= 0;
        if (!childMoved) {
            placement.placeThread(self.tid());
        }
        // The pid namespace last: afterwards this thread may not create threads. The time namespace
        // also applies to children only, but has no such rule. A child moved into its cgroup by the
        // creator makes its cgroup namespace itself, once there.
        int later = CLONE_NEWPID | (childMoved ? CLONE_NEWCGROUP : 0);
        int now = namespaces.create() & ~later;
        // Without a mount namespace of its own the root is still built in one, the thread's alone, which
        // the child leaves for the runtime's once the root is final (SharedMountNamespace).
        int sharedMountNs = -1;
        if (namespaces.hasUser()) {
            // The holder makes the user namespace and, owned by it, every other namespace the config
            // creates but pid and time; this thread joins them (after its cgroup, so a cgroup namespace
            // the holder makes is rooted there). pid and time stay this thread's unshares, owned by the
            // runtime's user namespace: a new pid namespace can be joined only once it has a PID 1
            // (its pid_for_children link resolves only then), and the process must be that PID 1; a
            // time namespace only by a single-threaded task.
            int owned = namespaces.create() & ~(CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWTIME
                    | (childMoved ? CLONE_NEWCGROUP : 0));
            startHolder(owned, self);
            holder.joinCreated();
            now &= ~(owned | CLONE_NEWUSER);
        }
        if (!namespaces.has(CLONE_NEWNS)) {
            if (namespaces.hasUser()) {
                // the process leaves its mount namespace for the runtime's after it has joined its user
                // namespace, which gives it no capability over the runtime's mount namespace
                throw new IllegalArgumentException("linux.namespaces: a user namespace without a mount namespace"
                        + " is not supported by jrunc");
            }
            SharedMountNamespace.refuse(spec);
            sharedMountNs = SharedMountNamespace.open();
            now |= CLONE_NEWNS;
        }
        try {
            if (now != 0) {
                Namespaces.unshare(now);
            }
            return build(self, childMoved, sharedMountNs);
        } finally {
            FileDescriptors.closeQuietly(sharedMountNs);
        }
    }

    private int build(SpawnThread self, boolean childMoved, int sharedMountNs) throws Exception {
        CgroupMounts cgroupMounts = new CgroupMounts(cgroup.location(),
                namespaces.creates(CLONE_NEWCGROUP) && !childMoved);
        prepared = new RootfsBuilder(spec, rootfs, cgroupMounts, hostIds).prepare(noPivot, execFifo,
                ChainSpawn.gateFd(preserveFds, filter != null && filter.usesNotify()));

        if (spec.hostname() != null && !spec.hostname().isEmpty()) {
            requireUts("hostname");
            Uts.sethostname(spec.hostname());
        }
        if (spec.domainname() != null && !spec.domainname().isEmpty()) {
            requireUts("domainname");
            Uts.setdomainname(spec.domainname());
        }

        ProcessSetup setup = ProcessSetup.of(spec.process(), preserveFds, prepared.procDestinations()).withStdio(stdio);
        String slave = null;
        if (setup.request().terminal()) {
            slave = PtyHandoff.handOver(consoleSocket, spec.process().consoleSize(), true, hostIds);
        }
        if (namespaces.creates(CLONE_NEWPID)) {
            Namespaces.unshare(CLONE_NEWPID);
        }
        if (newKeyring != null) {
            joinSessionKeyring(newKeyring);
        }
        FsContext.umask(setup.request().umask());
        return spawn.spawn(setup, new ChainSpawn.Gates(prepared.gatePath(), -1, createGate, sharedMountNs), slave, self,
                userNamespace, hostIds);
    }

    /**
     * Starts the holder of the user namespace (new, with the config's maps written from outside, or
     * joined by path), checks what it made and opens the user namespace for the process's chain. The
     * holder is published before anything can fail, so that create's undo releases it.
     */
    private void startHolder(int owned, SpawnThread self) throws IOException {
        NamespacePlan.UserJoin joined = namespaces.user();
        int pathFd = -1;
        if (joined != null) {
            try {
                pathFd = FileDescriptors.open(joined.path(), FileDescriptors.O_RDONLY | FileDescriptors.O_CLOEXEC);
            } catch (io.jrunc.bindings.ErrnoException e) {
                throw new IllegalArgumentException(joined.field() + ".path: " + e.goStyle());
            }
        }
        try {
            holder = NamespaceHolder.start(pathFd, owned, spawn.runtime().handledSignals());
            self.notTheChild(holder.pid());
        } finally {
            FileDescriptors.closeQuietly(pathFd);
        }
        if (joined == null) {
            writeMaps(holder.pid());
        }
        holder.awaitReady();
        holder.verify(joined == null ? null : joined.path(), joined == null ? null : joined.field());
        if (joined != null) {
            hostIds = HostIds.read(holder.pid());
            hostIds.requireMapped(spec.process().user(), "process");
        }
        userNamespace = holder.open("user");
    }

    /**
     * The config's maps for the holder's new user namespace. Root keeps setgroups "allow" (the process
     * takes its additional groups with setgroups). A map the kernel refuses (a range beyond the id
     * space, more ranges than it takes) is named by its field.
     */
    private void writeMaps(int pid) {
        try {
            IdMaps.write(pid, spec.linux().uidMappings(), spec.linux().gidMappings(), IdMaps.Setgroups.KEEP);
        } catch (IOException e) {
            // gid_map is written first: still empty, it is the one refused
            String field = "linux.uidMappings";
            try {
                if (java.nio.file.Files.readString(Path.of("/proc", Integer.toString(pid), "gid_map")).isEmpty()) {
                    field = "linux.gidMappings";
                }
            } catch (IOException unreadable) {
                // the holder is gone; name the first
            }
            String reason = e instanceof java.nio.file.FileSystemException f && f.getReason() != null ? f.getReason()
                    : String.valueOf(e.getMessage());
            throw new IllegalArgumentException(field + ": the kernel refused the map: "
                    + reason.toLowerCase(java.util.Locale.ROOT));
        }
    }

    /** The holder of the container's user namespace, or null; create releases it at the exec gate. */
    public NamespaceHolder holder() {
        return holder;
    }

    /** The host's ids behind the container's: valid once the child exists. */
    public HostIds hostIds() {
        return hostIds;
    }

    /** A session keyring of its own (runc's default; --no-new-keyring skips it). Kernels without keys are fine. */
    private static void joinSessionKeyring(String name) {
        try {
            io.jrunc.bindings.Keyrings.joinNewSession(name);
        } catch (io.jrunc.bindings.ErrnoException e) {
            if (!e.is(io.jrunc.bindings.Errno.ENOSYS)) {
                throw e;
            }
        }
    }

    private void requireUts(String field) {
        if (!namespaces.has(CLONE_NEWUTS)) {
            throw new IllegalArgumentException(field + ": unable to set " + field
                    + " without a private UTS namespace");
        }
    }

}
