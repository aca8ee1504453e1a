package io.jrunc.shim.host;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * Looks at every task's OOM kill counter a few times a second (the runtime library's
 * {@code Container.oomEvents}: memory.events {@code oom_kill} on cgroup v2, memory.oom_control's
 * {@code oom_kill} on v1), on one thread for all tasks; a counter that went up is an OOM event.
 */
final class OomWatch {
    static final long PERIOD_MILLIS = 200;
    private final Set<HostTask> tasks = ConcurrentHashMap.newKeySet();
    private final Consumer<HostTask> check;
    private volatile boolean stopped;

    private OomWatch(Consumer<HostTask> check) {
        this.check = check;
    }

    static OomWatch start(Consumer<HostTask> check) {
        OomWatch watch = new OomWatch(check);
        Thread.ofPlatform().name("oom-watch").daemon(true).start(watch::loop);
        return watch;
    }

    void add(HostTask task) {
        tasks.add(task);
    }

    /** Looks once more (an OOM kill just before the task ended is still reported), then forgets it. */
    void remove(HostTask task) {
        if (tasks.remove(task)) {
            check.accept(task);
        }
    }

    void stop() {
        stopped = true;
    }

    private void loop() {
        while (!stopped) {
            try {
                Thread.sleep(PERIOD_MILLIS);
            } catch (InterruptedException e) {
                return;
            }
            for (HostTask task : tasks) {
                try {
                    check.accept(task);
                } catch (RuntimeException e) {
                    // a task deleted meanwhile
                }
            }
        }
    }
}
