package io.jrunc.bindings;

import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicReference;

/** For tests that change per-thread kernel state (namespaces): work on a platform thread of its own. */
final class TestThreads {
    private TestThreads() {
    }

    /** Runs {@code body} on a new platform thread (which ends with it) and returns its result or rethrows its failure. */
    static <T> T onThread(String name, Callable<T> body) throws Exception {
        AtomicReference<T> result = new AtomicReference<>();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread t = Thread.ofPlatform().name(name).start(() -> {
            try {
                result.set(body.call());
            } catch (Throwable e) {
                failure.set(e);
            }
        });
        t.join();
        if (failure.get() instanceof Exception e) {
            throw e;
        } else if (failure.get() instanceof Error e) {
            throw e;
        }
        return result.get();
    }
}
