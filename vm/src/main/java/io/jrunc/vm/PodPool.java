package io.jrunc.vm;

import io.jrunc.agent.api.AgentClient;
import io.jrunc.vm.config.ConfigFile;
import io.jrunc.vm.monitor.MonitorLink;
import io.jrunc.vm.qemu.VmImage;
import io.jrunc.vm.state.PodRecord;
import io.jrunc.vm.state.StateRoot;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The warm pool: anonymous pods booted ahead ({@code [pool] size} in the configuration file), each
 * what a container given no flags would get as its anonymous pod (its CPUs, memory and swap area from
 * the file's [container] defaults, user-mode network, the installed VM image). A `run` or `create`
 * without --pod whose pod would be the same takes one ({@link #take}) instead of booting a VM, and the
 * pool is filled again in the background after the command ({@link #refill}). What kata calls its VM
 * cache; off unless the file asks for it, since every pooled pod holds its VM's memory while it waits.
 *
 * <p>A pooled pod is an ordinary anonymous pod whose record says {@code pooled}: `pod ls` lists it,
 * `pod rm -f` removes it, and once a container takes it, it is that container's and goes with it.
 * `pod pool` fills the pool and waits for its pods to serve; `pod pool --drain` removes them.
 */
public final class PodPool {
    /** How long a fill waits for a monitor it started to hold its lock (the pod counts as booting then). */
    private static final Duration MONITOR_START = Duration.ofSeconds(30);

    private final Pods pods;
    private final StateRoot root;
    private final ConfigFile.Defaults defaults;

    public PodPool(Pods pods, ConfigFile.Defaults defaults) {
        this.pods = pods;
        this.root = pods.root();
        this.defaults = defaults;
    }

    /** Whether the configuration keeps a pool. */
    public boolean enabled() {
        return defaults.pool() > 0;
    }

    /**
     * The pod a container given no flags gets: what the pool's pods are made as (their hostname aside,
     * which is the container's once one takes the pod).
     */
    public PodRecord.Config template(String hostname) throws VmException {
        long swap = defaults.containerSwap(null);
        // as create sizes an anonymous pod's area from the container's swap cap
        return Containers.anonymousConfig(defaults.containerCpus(null), defaults.containerMemory(null),
                swap > 0 ? io.jrunc.vm.qemu.SwapDisk.require(swap, "container.swap") : 0, hostname,
                Pods.NetworkSpec.DEFAULT.resolve());
    }

    /**
     * Whether a pooled pod can stand for an anonymous pod made as {@code wanted}: the same CPUs,
     * memory and swap area, the same network with no published port, the installed image.
     */
    static boolean same(PodRecord.Config pooled, PodRecord.Config wanted) {
        PodRecord.Network a = pooled.network(), b = wanted.network();
        return pooled.cpus() == wanted.cpus() && pooled.memoryBytes() == wanted.memoryBytes()
                && pooled.swapBytes() == wanted.swapBytes() && a.mode().equals(b.mode()) && b.publish().isEmpty()
                && a.publish().isEmpty() && a.dnsSearch().equals(b.dnsSearch()) && a.dnsOptions().equals(b.dnsOptions())
                && pooled.dns().equals(wanted.dns()) && pooled.addHosts().equals(wanted.addHosts())
                && pooled.sysctls().equals(wanted.sysctls()) && pooled.kernel() == null && wanted.kernel() == null
                && pooled.initrd() == null && wanted.initrd() == null;
    }

    /** A pooled pod taken for a container, and its create.lock held shared for the create's call. */
    record Taken(PodRecord pod, StateRoot.Held creating) {
    }

    /**
     * Takes a pooled pod that can stand for {@code wanted} and whose qemu runs (booted, or booting:
     * the caller waits for it to serve), for the container {@code hostname} names: its record is
     * written out of the pool with that hostname, which the caller then configures in the guest. The
     * caller holds the state root's lock. Only a pod whose qemu is recorded is taken: until then its
     * monitor writes pod.json itself, and would write the pool's record back over the taking. A pod
     * a drain or a fill is removing (its create.lock held exclusively) is passed by; once taken, the
     * create's shared hold keeps them from it.
     */
    Optional<Taken> take(PodRecord.Config wanted, String hostname) throws VmException {
        if (!enabled()) {
            return Optional.empty();
        }
        String installed = installedDigest();
        for (PodRecord p : root.pods()) {
            if (p.pooled() && same(p.config(), wanted) && pods.running(p) && current(p, installed)) {
                Optional<StateRoot.Held> creating = root.tryCreating(p.name());
                if (creating.isEmpty()) {
                    continue;
                }
                PodRecord taken = p.taken(hostname);
                try {
                    root.write(taken);
                } catch (VmException | RuntimeException e) {
                    creating.get().close();
                    throw e;
                }
                return Optional.of(new Taken(taken, creating.get()));
            }
        }
        return Optional.empty();
    }

    /**
     * Removes a pooled pod unless a create holds it (it was taken meanwhile): under its create.lock
     * held exclusively, its record read again.
     */
    private boolean removeIfPooled(String name) throws VmException {
        Optional<StateRoot.Held> claim = root.tryClaim(name);
        if (claim.isEmpty()) {
            return false;
        }
        try (StateRoot.Held held = claim.get()) {
            if (!pooled(name)) {
                return false;
            }
            pods.remove(name, true, Duration.ZERO);
            return true;
        }
    }

    /**
     * Fills the pool to its size: pooled pods that no longer run, or that booted an image other than
     * the one installed now, are removed; new ones are made and their monitors started, each waited
     * for until it holds its lock (from then on the pod counts as booting). With {@code wait}, every
     * pooled pod is then waited for until it serves. One fill at a time (ROOT/pool.lock). The names
     * of the pods still pooled at the end (a run may take one while it boots).
     */
    public List<String> fill(boolean wait) throws VmException {
        try (AutoCloseable ignored = root.poolLock()) {
            String installed = installedDigest();
            List<String> kept = new ArrayList<>();
            for (PodRecord p : root.pods()) {
                if (!p.pooled()) {
                    continue;
                }
                if (current(p, installed) && pods.active(p)) {
                    kept.add(p.name());
                    continue;
                }
                // a pod a fill killed part-way made, or one whose VM ended, or an old image's
                removeIfPooled(p.name());
            }
            while (kept.size() < defaults.pool()) {
                kept.add(launch());
            }
            if (wait) {
                for (String name : kept) {
                    awaitServing(name);
                }
            }
            // a run may have taken one meanwhile: it is that container's now, and not named
            List<String> pooled = new ArrayList<>();
            for (String name : kept) {
                if (pooled(name)) {
                    pooled.add(name);
                }
            }
            return pooled;
        } catch (VmException e) {
            throw e;
        } catch (Exception e) {
            throw new VmException("cannot fill the pod pool: " + e.getMessage(), e);
        }
    }

    /** A new pooled pod, its monitor started and holding its lock. */
    @SuppressWarnings("try") // the resource is a lock held for the block
    private String launch() throws VmException {
        String name = Names.random("anon-");
        PodRecord pod = PodRecord.pooled(name, template(name));
        Pods.image(pod); // no VM image: say so before anything is made
        StateRoot.Held creating;
        try (AutoCloseable ignored = root.lock()) {
            root.write(pod);
            // held until its monitor holds monitor.lock: `pod prune` and another fill leave it alone
            creating = root.creating(name);
        } catch (VmException e) {
            throw e;
        } catch (Exception e) {
            throw new VmException("cannot create pod " + name + ": " + e.getMessage(), e);
        }
        try (creating) {
            Pods.Launch launched = pods.launch(name);
            long deadline = System.nanoTime() + MONITOR_START.toNanos();
            while (!MonitorLink.monitorAlive(root, name)) {
                if (launched.monitor() != null && !launched.monitor().isAlive()) {
                    throw new VmException("pod " + name + ": its monitor exited " + launched.monitor().exitValue() + ": "
                            + MonitorLink.lastLine(root.podDir(name).resolve("monitor.log")));
                }
                if (System.nanoTime() > deadline) {
                    throw new VmException("pod " + name + ": its monitor did not start within " + MONITOR_START.toSeconds() + " s");
                }
                Thread.sleep(10);
            }
            return name;
        } catch (VmException | RuntimeException e) {
            pods.remove(name, true, Duration.ZERO);
            throw e;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            pods.remove(name, true, Duration.ZERO);
            throw new VmException("pod " + name + ": interrupted while its monitor started", e);
        }
    }

    /**
     * Waits for a pooled pod to serve; one that does not is removed (unless a container took it
     * meanwhile: then it is that container's create's to undo), and the error says why.
     */
    private void awaitServing(String name) throws VmException {
        if (!pooled(name)) {
            return; // taken (and maybe removed with its container) since: its taker waits for it
        }
        try (AgentClient ignored = pods.start(name)) {
            // serving
        } catch (VmException | RuntimeException e) {
            if (removeIfPooled(name) || pooled(name)) {
                throw e;
            }
            // taken while it booted: what became of it is its container's command's to say
        }
    }

    private boolean pooled(String name) throws VmException {
        return root.pod(name).map(PodRecord::pooled).orElse(false);
    }

    /** Removes every pooled pod (a pod a container took is no longer pooled); their names. */
    public List<String> drain() throws VmException {
        try (AutoCloseable ignored = root.poolLock()) {
            List<String> removed = new ArrayList<>();
            for (PodRecord p : root.pods()) {
                if (p.pooled() && removeIfPooled(p.name())) {
                    removed.add(p.name());
                }
            }
            return removed;
        } catch (VmException e) {
            throw e;
        } catch (Exception e) {
            throw new VmException("cannot drain the pod pool: " + e.getMessage(), e);
        }
    }

    /**
     * After a command that made or took an anonymous pod: when the pool is short, a fill is started
     * in the background (`pod pool --background`, detached, its output in ROOT/pool.log), so that the
     * command returns as soon as its own work is done and the next one finds a booted pod.
     */
    public void refill(List<String> globalArgs) throws VmException {
        if (!enabled()) {
            return;
        }
        int pooled = 0;
        for (PodRecord p : root.pods()) {
            if (p.pooled() && pods.active(p)) {
                pooled++;
            }
        }
        if (pooled >= defaults.pool()) {
            return;
        }
        List<String> args = new ArrayList<>(globalArgs);
        args.addAll(List.of("pod", "pool", "--background"));
        try {
            MonitorLink.startCli(args, root.path().resolve("pool.log"));
        } catch (IOException e) {
            throw new VmException("cannot start the pod pool's fill: " + e.getMessage(), e);
        }
    }

    /** Not booted yet, or booted from the image installed now (when its digest is known). */
    private static boolean current(PodRecord p, String installed) {
        return !p.vm().everBooted() || installed == null || installed.equals(p.vm().bootedDigest());
    }

    private static String installedDigest() {
        try {
            String digest = VmImage.locate(null, null).digest();
            return VmImage.UNKNOWN_DIGEST.equals(digest) ? null : digest;
        } catch (VmException e) {
            return null;
        }
    }
}
