package io.jrunc.runtime;

import io.jrunc.bindings.Errno;
import io.jrunc.bindings.ErrnoException;
import io.jrunc.bindings.Processes;
import io.jrunc.bindings.Signals;
import io.jrunc.cgroups.Cgroup;
import io.jrunc.cgroups.CgroupException;
import io.jrunc.runtime.init.ExecFailure;
import io.jrunc.spec.ContainerStatus;
import io.jrunc.spec.Json;
import io.jrunc.spec.RuncState;
import io.jrunc.spec.Spec;
import io.jrunc.spec.SpecException;
import io.jrunc.spec.SpecLoader;
import io.jrunc.spec.State;
import io.jrunc.spec.UtcText;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.StandardOpenOption;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;

/**
 * An existing container, loaded from its state directory and locked for the duration of one
 * command. Status is derived on every load, as runc does: the init process gone (or replaced, by
 * start time) means stopped; a frozen cgroup means paused; the exec FIFO still present means created;
 * otherwise running.
 */
public final class Container implements AutoCloseable {
    private final ContainerDirectory dir;
    private final ContainerState state;

    private Container(ContainerDirectory dir, ContainerState state) {
        this.dir = dir;
        this.state = state;
    }

    public static Container load(Path root, String id) {
        ContainerId.validate(id);
        ContainerDirectory dir = ContainerDirectory.open(root, id);
        try {
            return new Container(dir, dir.read());
        } catch (RuntimeException e) {
            dir.close();
            throw e;
        }
    }

    public ContainerState state() {
        return state;
    }

    private Spec config;

    /** The config the container was created from, parsed on first use (few commands need it). */
    public Spec config() {
        if (config == null) {
            try {
                config = SpecLoader.parse(Files.readAllBytes(dir.config()));
            } catch (IOException e) {
                throw new UncheckedIOException("reading config of " + state.id(), e);
            } catch (SpecException e) {
                throw new ContainerException("stored config of " + state.id() + ": " + e.getMessage());
            }
        }
        return config;
    }

    static Container of(ContainerDirectory dir, ContainerState state, Spec config) {
        Container c = new Container(dir, state);
        c.config = config;
        return c;
    }

    public Path stateDirectory() {
        return dir.path();
    }

    public String id() {
        return state.id();
    }

    public Status status() {
        if (state.pid() <= 0 || !ProcStat.isSameLiveProcess(state.pid(), state.pidStartTime())) {
            return Status.STOPPED;
        }
        // runc checks the freezer first: a created container that was paused is paused
        if (frozen()) {
            return Status.PAUSED;
        }
        return Files.exists(dir.execFifo()) ? Status.CREATED : Status.RUNNING;
    }

    private boolean frozen() {
        try {
            return cgroup().isFrozen();
        } catch (CgroupException e) {
            return false;
        }
    }

    /** runc's pause: freeze every process of the container's cgroup. */
    public void pause() {
        Status status = status();
        if (status != Status.RUNNING && status != Status.CREATED) {
            throw ContainerException.notRunning();
        }
        try {
            cgroup().freeze();
        } catch (CgroupException e) {
            throw new ContainerException("unable to freeze: " + e.getMessage(), e);
        }
    }

    public void resume() {
        if (status() != Status.PAUSED) {
            throw new ContainerException("container not paused");
        }
        try {
            cgroup().thaw();
        } catch (CgroupException e) {
            throw new ContainerException("unable to thaw: " + e.getMessage(), e);
        }
    }

    /** Resource usage of the container's cgroup (`events --stats`). */
    public io.jrunc.cgroups.CgroupStats stats() {
        if (status() == Status.STOPPED) {
            throw ContainerException.notRunning();
        }
        try {
            return cgroup().stats();
        } catch (CgroupException e) {
            throw new ContainerException("unable to read stats: " + e.getMessage(), e);
        }
    }

    /** OOM counters of the container's cgroup (`events`). */
    public io.jrunc.cgroups.OomEvents oomEvents() {
        try {
            return cgroup().oomEvents();
        } catch (CgroupException e) {
            throw new ContainerException("unable to read OOM events: " + e.getMessage(), e);
        }
    }

    /** The kernel's notice of the cgroup's OOM counters to wait on, if it has a memory controller. */
    public java.util.Optional<io.jrunc.cgroups.OomNotifier> oomNotifier() {
        try {
            return cgroup().oomNotifier();
        } catch (CgroupException e) {
            throw new ContainerException("unable to watch OOM events: " + e.getMessage(), e);
        }
    }

    /** The resources in force: those of the last update, else the config's (with the device rules). */
    public io.jrunc.spec.LinuxResources resources() {
        Path stored = dir.path().resolve("resources.json");
        if (Files.exists(stored)) {
            try {
                return io.jrunc.spec.SpecReader.readResources(Files.readAllBytes(stored));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            } catch (SpecException e) {
                throw new ContainerException("stored resources of " + state.id() + ": " + e.getMessage());
            }
        }
        return DeviceRules.resourcesOf(config());
    }

    /**
     * runc's update: the new values are merged into the resources in force (so a swap-only update is
     * converted against the stored memory limit), applied, and stored for the next update.
     */
    public void update(io.jrunc.spec.LinuxResources changes) {
        if (status() == Status.STOPPED) {
            throw ContainerException.notRunning();
        }
        io.jrunc.spec.LinuxResources merged = ResourceMerge.merge(resources(), changes);
        try {
            Cgroup forUpdate = cgroup();
            (Rootless.cgroups() ? forUpdate.asRootless() : forUpdate).apply(merged);
        } catch (CgroupException e) {
            throw new ContainerException(e.getMessage(), e);
        }
        try {
            Files.writeString(dir.path().resolve("resources.json"), io.jrunc.spec.Json.write(merged));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The caller-facing state (runc's `state` output). */
    public RuncState runcState() {
        Status status = status();
        return new RuncState(state.ociVersion(), state.id(), status == Status.STOPPED ? 0 : state.pid(),
                ContainerStatus.valueOf(status.name()), state.bundle(), state.rootfs(), UtcText.parse(state.created()),
                state.annotations(), state.owner());
    }

    /** The OCI state as hooks and the seccomp listener receive it. */
    State ociState() {
        return ociState(ContainerStatus.valueOf(status().name()));
    }

    private State ociState(ContainerStatus status) {
        return new State(state.ociVersion(), state.id(), status,
                status == ContainerStatus.STOPPED ? null : state.pid(), state.bundle(), state.annotations());
    }

    /** The OCI state document hooks receive on stdin. */
    public byte[] ociStateJson() {
        return ociStateJson(ContainerStatus.valueOf(status().name()));
    }

    /**
     * The OCI state with an explicit status: hooks that run while create is still under way
     * (prestart, createRuntime, createContainer) see "creating", as with runc.
     */
    byte[] ociStateJson(ContainerStatus status) {
        return Json.write(ociState(status)).getBytes(java.nio.charset.StandardCharsets.UTF_8);
    }

    /**
     * Releases the process waiting at the exec gate, whose open of the FIFO for writing is pending
     * until a reader opens it, and waits until the program has been exec'd (the write end is
     * close-on-exec) or the process died.
     *
     * <p>The FIFO is first opened read-write, which never blocks and completes the child's open; a
     * plain read-only open would block forever if the child had died meanwhile, with no writer left.
     * With that descriptor held a read-only open cannot block either; once the read-write one is closed
     * the child's is the only write end, so EOF on the reader means exec or death. Plain JDK file
     * channels do this, so `start` needs no native call of its own (docs/PERFORMANCE.md).
     */
    public void start() {
        switch (status()) {
            case STOPPED -> throw new ContainerException("cannot start a container that has stopped");
            case RUNNING, PAUSED -> throw new ContainerException("cannot start an already running container");
            case CREATED -> { }
        }
        Hooks.startContainer(this);
        Path fifo = dir.execFifo();
        FileChannel reader;
        try (FileChannel both = FileChannel.open(fifo, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            reader = FileChannel.open(fifo, StandardOpenOption.READ);
        } catch (IOException e) {
            throw new UncheckedIOException("opening the exec fifo", e);
        }
        // EOF on the FIFO means the write end closed: at execve (close-on-exec) or because the child
        // died. A child whose execve failed writes why before it exits with status 127 (ExecFailure):
        // start has done its part, as runc's does then, and says what became of the process.
        ByteBuffer written = ByteBuffer.allocate(8192);
        try (reader) {
            while (reader.read(written.hasRemaining() ? written : ByteBuffer.allocate(512)) >= 0) {
                // until EOF; what does not fit is read and dropped
            }
        } catch (IOException e) {
            throw new UncheckedIOException("waiting on the exec fifo", e);
        }
        try {
            Files.deleteIfExists(dir.execFifo());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        if (written.position() > 0) {
            ExecFailure failed = ExecFailure.of(written.array(), written.position());
            if (failed != null) {
                Log.error(failed.logMessage());
            }
        }
        Hooks.poststart(this);
    }

    /** Sends {@code signal} to the init process, or with {@code all} to every process of the cgroup. */
    public void kill(int signal, boolean all) {
        Status status = status();
        if (all) {
            try {
                cgroup().killAll(signal);
            } catch (CgroupException e) {
                throw new ContainerException("unable to signal all processes: " + e.getMessage(), e);
            }
            return;
        }
        if (status == Status.STOPPED) {
            throw ContainerException.notRunning();
        }
        try {
            Processes.kill(state.pid(), signal);
        } catch (ErrnoException e) {
            if (e.is(Errno.ESRCH)) {
                throw ContainerException.notRunning();
            }
            throw e;
        }
        if (signal == Signals.SIGKILL && status == Status.PAUSED) {
            thawQuietly(); // a frozen process cannot die; runc thaws after SIGKILL too
        }
    }

    private void thawQuietly() {
        try {
            cgroup().thaw();
        } catch (CgroupException ignored) {
            // nothing frozen to thaw
        }
    }

    /** runc's delete: stopped → destroy; created → kill and destroy; running needs --force. */
    public void delete(boolean force) {
        Status status = status();
        switch (status) {
            case STOPPED -> { }
            case CREATED -> killAndWait();
            case RUNNING, PAUSED -> {
                if (!force) {
                    throw new ContainerException("cannot delete container " + state.id() + " that is not stopped: "
                            + status.wire());
                }
                killAndWait();
            }
        }
        destroy();
    }

    private void killAndWait() {
        try {
            Processes.kill(state.pid(), Signals.SIGKILL);
        } catch (ErrnoException e) {
            if (!e.is(Errno.ESRCH)) {
                throw e;
            }
        }
        thawQuietly();
        for (int i = 0; i < 100 && ProcStat.isSameLiveProcess(state.pid(), state.pidStartTime()); i++) {
            sleep(i < 10 ? 2 : 100);
        }
    }

    /** Removes everything the container left: its remaining processes' cgroup, its state, then poststop. */
    void destroy() {
        // Only poststop hooks read the state, and writing it starts jackson's generator: skip it without.
        boolean poststop = state.hooks().contains("poststop");
        byte[] stoppedState = poststop ? ociStateJson() : null;
        if (poststop) {
            config(); // read before ROOT/ID (and the config kept there) is removed
        }
        Cgroup cgroup = cgroup();
        try {
            // The common case, nothing left: one rmdir per hierarchy. Otherwise kill what remains and
            // remove with retries.
            if (!cgroup.removeIfEmpty()) {
                for (long pid : cgroup.processes()) {
                    try {
                        Processes.kill((int) pid, Signals.SIGKILL);
                    } catch (ErrnoException ignored) {
                        // gone already
                    }
                }
                cgroup.destroy();
            }
        } catch (CgroupException e) {
            throw new ContainerException("removing cgroup: " + e.getMessage(), e);
        }
        dir.remove();
        if (poststop) {
            Hooks.poststop(this, stoppedState);
        }
    }

    /** Host pids of every process in the container's cgroup. */
    public java.util.List<Long> processes() {
        try {
            return cgroup().processes();
        } catch (CgroupException e) {
            throw new ContainerException("reading cgroup processes: " + e.getMessage(), e);
        }
    }

    Cgroup cgroup() {
        return Cgroup.open(state.cgroup());
    }

    static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        dir.close();
    }
}
