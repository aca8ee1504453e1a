package io.jrunc.vminit;

import io.jrunc.agent.api.AgentMethods;
import io.jrunc.agent.api.pb.v1.*;
import io.jrunc.bindings.Errno;
import io.jrunc.bindings.ErrnoException;
import io.jrunc.bindings.Processes;
import io.jrunc.bindings.Signals;
import io.jrunc.runtime.ConsoleHandoff;
import io.jrunc.runtime.Container;
import io.jrunc.runtime.ContainerCreator;
import io.jrunc.runtime.ContainerException;
import io.jrunc.runtime.CreateOptions;
import io.jrunc.runtime.init.ChildCgroupEntry;
import io.jrunc.runtime.init.SpawnRequest;
import io.jrunc.spec.Spec;
import io.jrunc.ttrpc.Code;
import io.jrunc.ttrpc.Dispatcher;
import io.jrunc.ttrpc.RpcException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * jrunc.agent.v1.Containers: each container's lifecycle, made with the runtime library
 * ({@link ContainerCreator}, the same spawn path as the jrunc binary), in this JVM, with pipes the
 * agent holds as the process's standard streams.
 */
final class ContainerService {
    private final ContainerStore store;
    private final Reaper reaper;
    private final PodConfig pod;

    ContainerService(ContainerStore store, Reaper reaper, PodConfig pod) {
        this.store = store;
        this.reaper = reaper;
        this.pod = pod;
    }

    void register(Dispatcher d) {
        d.register(AgentMethods.Containers.CREATE, (c, r) -> create(r));
        d.register(AgentMethods.Containers.START, (c, r) -> start(r));
        d.register(AgentMethods.Containers.STOP, (c, r) -> stop(r));
        d.register(AgentMethods.Containers.REMOVE, (c, r) -> remove(r));
        d.register(AgentMethods.Containers.INSPECT, (c, r) ->
                InspectContainerResponse.newBuilder().setContainer(store.get(r.getId()).info()).build());
        d.register(AgentMethods.Containers.LIST, (c, r) -> {
            ListContainersResponse.Builder b = ListContainersResponse.newBuilder();
            store.all().forEach(rec -> b.addContainers(rec.info()));
            return b.build();
        });
        d.register(AgentMethods.Containers.STATS, (c, r) -> CgroupStatsReader.read(store.get(r.getId()).id));
        d.register(AgentMethods.Containers.UPDATE, (c, r) -> update(r));
        d.register(AgentMethods.Containers.PAUSE, (c, r) -> {
            freezer(r.getId(), true);
            return PauseContainerResponse.getDefaultInstance();
        });
        d.register(AgentMethods.Containers.RESUME, (c, r) -> {
            freezer(r.getId(), false);
            return ResumeContainerResponse.getDefaultInstance();
        });
    }

    /**
     * Pause (freeze) or Resume (thaw): the runtime library's freezer on the container's cgroup, as
     * `jrunc pause` and `jrunc resume` run it (its checks: a stopped container is not paused, one not
     * paused is not resumed).
     */
    private void freezer(String id, boolean freeze) throws RpcException {
        ContainerRecord rec = store.get(id);
        if (rec.state() == ContainerState.CONTAINER_STATE_STOPPED) {
            throw new RpcException(Code.FAILED_PRECONDITION, "container " + rec.id + " is stopped");
        }
        try (Container container = Container.load(ContainerStore.STATE_ROOT, rec.id)) {
            if (freeze) {
                container.pause();
            } else {
                container.resume();
            }
        } catch (ContainerException e) {
            throw new RpcException(Code.FAILED_PRECONDITION, (freeze ? "pause " : "resume ") + rec.id + ": " + e.getMessage());
        }
    }

    /**
     * The runtime library's update, as `jrunc update` runs it: the change merged into the resources in
     * force (a swap-only change is converted against the stored memory limit), then converted to
     * memory.swap.max (the OCI total minus memory, as runc converts it) and written.
     */
    private UpdateContainerResponse update(UpdateContainerRequest r) throws RpcException {
        ContainerRecord rec = store.get(r.getId());
        if (rec.state() == ContainerState.CONTAINER_STATE_STOPPED) {
            throw new RpcException(Code.FAILED_PRECONDITION, "container " + rec.id + " is stopped");
        }
        io.jrunc.spec.LinuxMemory memory = new io.jrunc.spec.LinuxMemory(
                r.hasMemoryLimit() ? r.getMemoryLimit() : null, null, r.hasMemorySwap() ? r.getMemorySwap() : null,
                null, null, null, null, null, null);
        try (Container container = Container.load(ContainerStore.STATE_ROOT, rec.id)) {
            container.update(new io.jrunc.spec.LinuxResources(null, memory, null, null, null, null, null, null, null));
        } catch (ContainerException e) {
            throw new RpcException(Code.FAILED_PRECONDITION, "update " + rec.id + ": " + e.getMessage());
        }
        return UpdateContainerResponse.getDefaultInstance();
    }

    private CreateContainerResponse create(CreateContainerRequest r) throws RpcException, InterruptedException {
        long t0 = System.nanoTime();
        String id = r.getId();
        try {
            io.jrunc.runtime.ContainerId.validate(id);
        } catch (ContainerException e) {
            throw new RpcException(Code.INVALID_ARGUMENT, "id: " + e.getMessage());
        }
        if (r.getRootfs().getSerial().isEmpty()) {
            throw new RpcException(Code.INVALID_ARGUMENT, "rootfs.serial: must be set");
        }
        ContainerSpecs.Rewritten config = ContainerSpecs.rewrite(r.getOciConfig().toByteArray(), id, pod.hostname, pod.files);
        boolean noPivot = RootSwitch.noPivot(r.getNoPivot());
        store.reserve(id);
        Path bundle = ContainerStore.BUNDLES.resolve(id);
        List<Path> mounts = List.of();
        ProcessIo io = null;
        ConsoleHandoff console = null;
        boolean created = false;
        int pid = -1;
        long specRead = System.nanoTime(), disksFound = 0, rootReady = 0, runtimeDone = 0;
        try {
            String fsType = r.getRootfs().getFsType().isEmpty() ? "ext4" : r.getRootfs().getFsType();
            boolean shared = SharedDirectories.TYPE.equals(fsType);
            String device;
            try {
                device = shared ? sharedRoot(r.getRootfs().getSerial())
                        : pathOrNull(RootDisks.find(r.getRootfs().getSerial(), 10_000));
            } catch (IOException e) {
                throw new RpcException(Code.INTERNAL, "listing disks: " + e.getMessage());
            }
            if (device == null) {
                throw new RpcException(Code.NOT_FOUND, "no disk with serial " + r.getRootfs().getSerial());
            }
            Path layer = null;
            if (r.hasLayer() && !r.getLayer().getSerial().isEmpty()) {
                if (shared) {
                    throw new RpcException(Code.INVALID_ARGUMENT, "layer: given for a root shared by virtio-fs (writes go to the shared directory)");
                }
                if (!config.writable()) {
                    throw new RpcException(Code.INVALID_ARGUMENT, "layer: given for a read-only root (root.readonly true)");
                }
                try {
                    layer = RootDisks.find(r.getLayer().getSerial(), 10_000);
                } catch (IOException e) {
                    throw new RpcException(Code.INTERNAL, "listing disks: " + e.getMessage());
                }
                if (layer == null) {
                    throw new RpcException(Code.NOT_FOUND, "no disk with serial " + r.getLayer().getSerial() + " (the layer)");
                }
            }
            disksFound = System.nanoTime();
            Spec spec;
            try {
                Files.createDirectories(bundle);
                Files.write(bundle.resolve("config.json"), config.json());
                mounts = shared && config.writable()
                        ? RootDisks.mountShared(device, bundle)
                        : RootDisks.mount(device, fsType, bundle, config.upperLayer(), layer);
                spec = ContainerCreator.loadBundle(id, bundle);
            } catch (IOException | ErrnoException e) {
                throw new RpcException(Code.INTERNAL, "preparing the root filesystem: " + e.getMessage());
            } catch (ContainerException e) {
                throw new RpcException(Code.INVALID_ARGUMENT, e.getMessage());
            }
            String missingShare;
            try {
                missingShare = SharedDirectories.await(spec, 10_000);
            } catch (IOException e) {
                throw new RpcException(Code.INTERNAL, e.getMessage());
            }
            if (missingShare != null) {
                throw new RpcException(Code.NOT_FOUND, "no shared directory with tag " + missingShare);
            }
            rootReady = System.nanoTime();
            boolean terminal = Boolean.TRUE.equals(spec.process().terminal());
            // a terminal's pty is made inside the container and its master sent back over a socket
            console = terminal ? ConsoleHandoff.pair() : null;
            io = terminal ? null : ProcessIo.pipes(id);
            // noPivot only when the create asks (runc's --no-pivot); else pivot_root, whose failure fails it
            try (Container container = ContainerCreator.create(ContainerStore.STATE_ROOT, new CreateOptions(id,
                    bundle, null, null, noPivot, false, 0, terminal ? console.runtimeEnd() : -1,
                    terminal ? SpawnRequest.Stdio.INHERIT : io.childStdio(), ChildCgroupEntry.CHILD_MOVED), false, spec)) {
                pid = container.state().pid();
            } catch (ContainerException e) {
                throw new RpcException(Code.FAILED_PRECONDITION, e.getMessage());
            } finally {
                if (io != null) {
                    io.closeChildEnds();
                }
            }
            runtimeDone = System.nanoTime();
            // From here the container's process exists: a failure below kills and deletes it (finally).
            if (terminal) {
                io = ProcessIo.terminal(id, receiveMaster(console, id));
            }
            ContainerRecord rec = new ContainerRecord(id, r.getRootfs().getSerial(), bundle, mounts);
            rec.init = new ManagedProcess(id, "", pid, io, reaper);
            store.fill(rec);
            created = true;
            // where a Create's time went: the spec rewritten, its disks found, the root mounted and the
            // bundle read, the runtime's create
            Console.log("container %s created: pid %d in %.0f ms (spec %.0f, disks %.0f, root %.0f, runtime %.0f)", id, pid,
                    (System.nanoTime() - t0) / 1e6, (specRead - t0) / 1e6, (disksFound - specRead) / 1e6,
                    (rootReady - disksFound) / 1e6, (runtimeDone - rootReady) / 1e6);
            return CreateContainerResponse.newBuilder().setPid(pid).build();
        } finally {
            if (console != null) {
                console.close();
            }
            if (!created) {
                if (pid > 0) {
                    discard(id, pid);
                }
                if (io != null) {
                    io.close();
                }
                RootDisks.unmount(mounts);
                RootDisks.removeBundle(bundle);
                store.release(id);
            }
        }
    }

    /**
     * The virtio-fs tag of a root shared from a host directory once the guest knows it (the host
     * hot-plugs its device just before Create), else NOT_FOUND naming it.
     */
    private static String sharedRoot(String tag) throws RpcException, IOException, InterruptedException {
        if (SharedDirectories.await(java.util.Set.of(tag), 10_000) != null) {
            throw new RpcException(Code.NOT_FOUND, "no shared directory with tag " + tag + " (the root filesystem)");
        }
        return tag;
    }

    private static String pathOrNull(Path device) {
        return device == null ? null : device.toString();
    }

    /** The pty master of a process with a terminal, within the handoff's limit, as an RpcException if not. */
    static int receiveMaster(ConsoleHandoff console, String process) throws RpcException {
        try {
            return console.receiveMaster();
        } catch (IllegalStateException | ErrnoException e) {
            throw new RpcException(Code.INTERNAL, process + ": the terminal: " + e.getMessage());
        }
    }

    /**
     * A container the runtime made whose create then failed in the agent (the terminal's master, the
     * record): its process killed, the container deleted (cgroup, state directory) and its exit status
     * taken from the reaper, so that the failed create leaves no process behind.
     */
    private void discard(String id, int pid) {
        try (Container container = Container.load(ContainerStore.STATE_ROOT, id)) {
            container.delete(true); // a created container: SIGKILL, then its cgroup and state
        } catch (RuntimeException e) {
            Console.log("container %s: deleting after a failed create: %s", id, e.getMessage());
            signalQuietly(pid, Signals.SIGKILL);
        }
        reaper.claim(pid);
        Console.log("container %s: create failed after its process %d was made: killed and deleted", id, pid);
    }

    private StartContainerResponse start(StartContainerRequest r) throws RpcException {
        ContainerRecord rec = store.get(r.getId());
        if (rec.state() != ContainerState.CONTAINER_STATE_CREATED) {
            throw new RpcException(Code.FAILED_PRECONDITION, "container " + rec.id + " is not created but "
                    + rec.state());
        }
        long t0 = System.nanoTime();
        try (Container container = Container.load(ContainerStore.STATE_ROOT, rec.id)) {
            container.start();
        } catch (ContainerException e) {
            throw new RpcException(Code.FAILED_PRECONDITION, e.getMessage());
        }
        rec.started = true;
        rec.startedAt = ManagedProcess.nowNanos();
        // with create's line, the in-guest create+start latency (scripts/vm-figures.sh reads both)
        Console.log("container %s started in %.1f ms", rec.id, (System.nanoTime() - t0) / 1e6);
        return StartContainerResponse.getDefaultInstance();
    }

    private StopContainerResponse stop(StopContainerRequest r) throws RpcException, InterruptedException {
        ContainerRecord rec = store.get(r.getId());
        boolean killed = stop(rec, r.getSignal() == 0 ? Signals.SIGTERM : r.getSignal(), r.getGraceNanos());
        return StopContainerResponse.newBuilder().setStatus(rec.init.exit.join()).setKilled(killed).build();
    }

    /** Signal, the grace period, then SIGKILL; true when SIGKILL was needed. */
    static boolean stop(ContainerRecord rec, int signal, long graceNanos) throws InterruptedException {
        ManagedProcess init = rec.init;
        if (init.exit.isDone()) {
            return false;
        }
        if (graceNanos > 0) {
            signalQuietly(init.pid, signal);
            try {
                init.exit.get(graceNanos, TimeUnit.NANOSECONDS);
                return false;
            } catch (TimeoutException e) {
                // on to SIGKILL
            } catch (ExecutionException e) {
                throw new IllegalStateException(e.getCause());
            }
        }
        signalQuietly(init.pid, Signals.SIGKILL);
        init.exit.join();
        return graceNanos > 0;
    }

    private static void signalQuietly(int pid, int signal) {
        try {
            Processes.kill(pid, signal);
        } catch (ErrnoException e) {
            if (!e.is(Errno.ESRCH)) {
                throw e;
            }
        }
    }

    private RemoveContainerResponse remove(RemoveContainerRequest r) throws RpcException, InterruptedException {
        ContainerRecord rec = store.get(r.getId());
        if (rec.state() != ContainerState.CONTAINER_STATE_STOPPED) {
            if (!r.getForce()) {
                throw new RpcException(Code.FAILED_PRECONDITION, "container " + rec.id + " is " + rec.state()
                        + ": stop it first, or remove with force");
            }
            stop(rec, 9, 0);
        }
        removeStopped(rec);
        store.release(rec.id);
        return RemoveContainerResponse.getDefaultInstance();
    }

    /** The cgroup (every process in it killed), the state directory, the mounts, the bundle. */
    static void removeStopped(ContainerRecord rec) {
        try (Container container = Container.load(ContainerStore.STATE_ROOT, rec.id)) {
            container.delete(true);
        } catch (ContainerException e) {
            Console.log("container %s: delete: %s", rec.id, e.getMessage());
        }
        rec.init.io.close();
        for (ExecEntry e : rec.execs.values()) {
            if (e instanceof ManagedProcess p) {
                p.io.close();
            }
        }
        RootDisks.unmount(rec.mounts);
        RootDisks.removeBundle(rec.bundle);
    }
}
