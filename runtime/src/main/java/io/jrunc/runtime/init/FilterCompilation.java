package io.jrunc.runtime.init;

import io.jrunc.seccomp.CompiledFilter;
import java.util.concurrent.CountDownLatch;
import java.util.function.Supplier;

/**
 * A container's seccomp filter, possibly still being compiled. create and exec compile on a platform
 * thread of its own, started before FFM's first link, the cgroup and the spawning thread, so that on a
 * machine with a second core the compile (a few milliseconds of interpreted code on a cold JVM)
 * overlaps the container's setup; the spawning thread needs the program only when it builds the
 * child's chain ({@link ProcessSpawn}). A compile error surfaces there, and create (or exec) undoes
 * what it made, as for any other failure.
 *
 * <p>The same thread first makes sure the seccomp module's classes can be loaded, which the spawning
 * thread needs before it leaves the host's root ({@link SpawnThread#openSeccompJar}: with the modules'
 * separate jars that opens the seccomp jar, ~3 ms; the launcher's one jar needs nothing more); the
 * spawning thread therefore waits for this compilation ({@link #get}) before anything else. The
 * compile itself is mostly a read of the state root's cache (ContainerSeccomp, SeccompCache).
 */
public final class FilterCompilation {
    /**
     * A compiled filter as the child loads it, with its program serialized as the kernel takes it
     * ({@code struct sock_filter[]}). create makes it on the compile thread, so the spawning thread
     * does not pay the serialization (~0.5 ms of interpreted code).
     */
    public record Loadable(CompiledFilter filter, byte[] programBytes) {
        static Loadable of(CompiledFilter filter) {
            return new Loadable(filter, filter.program().toBytes());
        }
    }

    private final boolean usesNotify;
    /** Open once the filter (or the compile's failure) is there. */
    private final CountDownLatch published = new CountDownLatch(1);
    /** Open once the compile thread has done everything, {@code afterPublished} included. */
    private final CountDownLatch done = new CountDownLatch(1);
    private volatile Loadable filter;
    private volatile Throwable failure;

    private FilterCompilation(boolean usesNotify) {
        this.usesNotify = usesNotify;
    }

    /**
     * What a compile gives: the filter, and what to run on the compile thread once it is published
     * ({@code afterPublished}, null for nothing: keeping a new program in the state root's cache, off
     * the spawning thread's path; {@link #finish} waits for it).
     */
    public record Result(CompiledFilter filter, Runnable afterPublished) {}

    /** Starts {@code compile} on a new platform thread; {@code usesNotify} is what the profile says. */
    public static FilterCompilation start(Supplier<Result> compile, boolean usesNotify) {
        FilterCompilation self = new FilterCompilation(usesNotify);
        Thread.ofPlatform().name("jrunc-seccomp").daemon(true).start(() -> {
            Result result = null;
            try {
                SpawnThread.openSeccompJar();
                result = compile.get();
                self.filter = Loadable.of(result.filter());
            } catch (RuntimeException | Error e) {
                self.failure = e;
            } finally {
                self.published.countDown();
            }
            try {
                if (self.failure == null && result.afterPublished() != null) {
                    result.afterPublished().run();
                }
            } finally {
                self.done.countDown();
            }
        });
        return self;
    }

    /** Waits until the compile thread has done everything, {@code afterPublished} included (before the JVM exits). */
    public void finish() {
        awaitUninterruptibly(done);
    }

    /** Whether a rule notifies, known before the compile ends: the child's descriptors depend on it. */
    public boolean usesNotify() {
        return usesNotify;
    }

    /** The filter and its program's bytes, waiting for the compile; its failure is rethrown. */
    public Loadable get() {
        awaitUninterruptibly(published);
        if (failure instanceof RuntimeException e) {
            throw e;
        }
        if (failure instanceof Error e) {
            throw e;
        }
        return filter;
    }

    /** Waits for {@code latch}; an interrupt is kept for the caller, not taken as a reason to stop waiting. */
    private static void awaitUninterruptibly(CountDownLatch latch) {
        boolean interrupted = false;
        while (true) {
            try {
                latch.await();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
