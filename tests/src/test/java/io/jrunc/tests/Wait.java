package io.jrunc.tests;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.BooleanSupplier;

/** Polling and running things side by side. */
public final class Wait {
    private Wait() {}

    public static void until(Duration timeout, String what, BooleanSupplier condition) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out after " + timeout + " waiting for " + what);
            }
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
        }
    }

    /** Waits until {@code file} exists with non-empty content and returns that content. */
    public static String forFile(Path file) {
        until(Duration.ofSeconds(30), file.toString(), () -> {
            try {
                return Files.exists(file) && Files.size(file) > 0;
            } catch (java.io.IOException e) {
                return false;
            }
        });
        return Host.read(file);
    }

    public static void forExit(long pid) {
        until(Duration.ofSeconds(30), "process " + pid + " to end", () -> Host.isZombieOrGone(pid));
    }

    /** Runs every task on its own thread and returns their results in order. */
    @SafeVarargs
    public static <T> List<T> parallel(Callable<T>... tasks) {
        try (ExecutorService ex = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<T>> futures = new ArrayList<>();
            for (Callable<T> t : tasks) {
                futures.add(ex.submit(t));
            }
            List<T> results = new ArrayList<>();
            for (Future<T> f : futures) {
                try {
                    results.add(f.get());
                } catch (java.util.concurrent.ExecutionException e) {
                    if (e.getCause() instanceof Error err) {
                        throw err;
                    }
                    throw new AssertionError(e.getCause());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new AssertionError(e);
                }
            }
            return results;
        }
    }
}
