package io.jrunc.shim.host;

import io.jrunc.cgroups.OomNotifier;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * A thread per live task waiting on its cgroup's OOM notifier (the cgroups module's
 * {@link OomNotifier}: the v1 memory controller's eventfd, or POLLPRI on v2's memory.events); at each
 * wake-up, and once a second in case one was missed, the task's OOM kill counter is read again
 * ({@code check}), and a counter that went up is an OOM event. The v1 notifier fires as the cgroup
 * enters OOM, a moment before the kill is counted, so a wake-up is followed by a few more looks.
 */
final class OomWatch {
    private static final int FALLBACK_MILLIS = 1000;
    private static final int[] AFTER_WAKE_MILLIS = {20, 50, 100, 250};
    private final Map<HostTask, Boolean> live = new ConcurrentHashMap<>();
    private final Consumer<HostTask> check;

    OomWatch(Consumer<HostTask> check) {
        this.check = check;
    }

    /** Starts watching; {@code notifier} may be null (no memory cgroup), then the counter is only polled. */
    void add(HostTask task, OomNotifier notifier) {
        live.put(task, Boolean.TRUE);
        Thread.ofPlatform().name("oom-" + task.id).daemon(true).start(() -> {
            try {
                while (live.containsKey(task)) {
                    boolean woken = notifier != null ? notifier.await(FALLBACK_MILLIS) : sleep(FALLBACK_MILLIS);
                    if (!live.containsKey(task)) {
                        break;
                    }
                    checkQuietly(task);
                    if (woken) {
                        for (int millis : AFTER_WAKE_MILLIS) {
                            sleep(millis);
                            checkQuietly(task);
                        }
                    }
                }
            } catch (RuntimeException e) {
                // the cgroup went away under the notifier: nothing more to watch
            } finally {
                if (notifier != null) {
                    notifier.close();
                }
            }
        });
    }

    /** Looks once more (an OOM kill just before the task ended is still reported), then stops watching. */
    void remove(HostTask task) {
        if (live.remove(task) != null) {
            checkQuietly(task);
        }
    }

    void stop() {
        live.clear();
    }

    private void checkQuietly(HostTask task) {
        try {
            check.accept(task);
        } catch (RuntimeException e) {
            // a task deleted meanwhile
        }
    }

    private static boolean sleep(int millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return false;
    }
}
