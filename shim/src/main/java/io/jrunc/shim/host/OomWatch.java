package io.jrunc.shim.host;

import io.jrunc.bindings.ErrnoException;
import io.jrunc.bindings.EventFds;
import io.jrunc.bindings.FileDescriptors;
import io.jrunc.cgroups.CgroupException;
import io.jrunc.cgroups.OomNotifier;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Waits for the kernel's OOM notices of every task's cgroup (a task is a {@code T}: the back end's
 * HostTask) ({@link OomNotifier}: the v1 memory
 * controller's eventfd, v2's memory.events change flag) on one thread, in one poll(2) over all of
 * them and an eventfd of its own that add, remove and stop signal. A notice makes it read the task's
 * counters ({@code check}: the runtime library's {@code Container.oomEvents}), where a kill count
 * that went up is an OOM event; so a task costs nothing until something happens in its cgroup.
 *
 * <p>A task whose notifier cannot be had (a cgroup without a memory controller cannot OOM; a
 * registration the kernel refused) is looked at every {@link #PERIOD_MILLIS} instead.
 *
 * <p>Notifiers are closed on the watching thread only: a descriptor closed while the poll holds its
 * number could be reused by another open and then drained or read by mistake.
 */
final class OomWatch<T> {
    static final int PERIOD_MILLIS = 200;

    private static final class Entry<T> {
        final T task;
        final OomNotifier notifier; // null: looked at on the clock
        volatile boolean removed;

        Entry(T task, OomNotifier notifier) {
            this.task = task;
            this.notifier = notifier;
        }
    }

    private final Map<T, Entry<T>> entries = new ConcurrentHashMap<>();
    private final List<Entry<T>> closing = new ArrayList<>(); // guarded by itself
    private final Consumer<T> check;
    private final Function<T, Optional<OomNotifier>> notifierOf;
    private final int wake = EventFds.create();
    private volatile boolean stopped;

    private OomWatch(Function<T, Optional<OomNotifier>> notifierOf, Consumer<T> check) {
        this.notifierOf = notifierOf;
        this.check = check;
    }

    static <T> OomWatch<T> start(Function<T, Optional<OomNotifier>> notifierOf, Consumer<T> check) {
        OomWatch<T> watch = new OomWatch<>(notifierOf, check);
        Thread.ofPlatform().name("oom-watch").daemon(true).start(watch::loop);
        return watch;
    }

    void add(T task) {
        OomNotifier notifier;
        try {
            notifier = notifierOf.apply(task).orElse(null);
        } catch (RuntimeException e) {
            notifier = null; // looked at on the clock
        }
        entries.put(task, new Entry<>(task, notifier));
        EventFds.signal(wake);
    }

    /** Looks once more (an OOM kill just before the task ended is still reported), then forgets it. */
    void remove(T task) {
        Entry<T> entry = entries.remove(task);
        if (entry != null) {
            entry.removed = true;
            synchronized (closing) {
                closing.add(entry);
            }
            EventFds.signal(wake);
            check.accept(task);
        }
    }

    void stop() {
        stopped = true;
        EventFds.signal(wake);
    }

    private void loop() {
        try {
            while (!stopped) {
                closeRemoved();
                List<Entry<T>> watched = new ArrayList<>();
                boolean clock = false;
                for (Entry<T> e : entries.values()) {
                    if (e.notifier != null) {
                        watched.add(e);
                    } else {
                        clock = true;
                    }
                }
                int[] fds = new int[watched.size() + 1];
                short[] events = new short[fds.length];
                short[] revents = new short[fds.length];
                fds[0] = wake;
                events[0] = FileDescriptors.POLLIN;
                for (int i = 0; i < watched.size(); i++) {
                    fds[i + 1] = watched.get(i).notifier.fd();
                    events[i + 1] = watched.get(i).notifier.events();
                }
                int ready = FileDescriptors.poll(fds, events, revents, clock ? PERIOD_MILLIS : -1);
                if (revents[0] != 0) {
                    EventFds.drain(wake);
                }
                for (int i = 0; i < watched.size(); i++) {
                    Entry<T> e = watched.get(i);
                    if (revents[i + 1] != 0 && !e.removed) {
                        look(e);
                    }
                }
                if (ready == 0 && clock) {
                    for (Entry<T> e : entries.values()) {
                        if (e.notifier == null) {
                            look(e);
                        }
                    }
                }
            }
        } catch (ErrnoException e) {
            System.err.println("oom-watch: " + e.getMessage() + "; OOM events are no longer reported");
        } finally {
            closeRemoved();
            for (Entry<T> e : entries.values()) {
                if (e.notifier != null) {
                    e.notifier.close();
                }
            }
            FileDescriptors.closeQuietly(wake);
        }
    }

    /** Takes the notice, then reads the counters: a kill after the take wakes the next poll. */
    private void look(Entry<T> e) {
        if (e.notifier != null) {
            try {
                e.notifier.rearm();
            } catch (CgroupException | ErrnoException gone) {
                // the cgroup went before its task's delete: nothing more can happen in it
                if (entries.remove(e.task, e)) {
                    e.removed = true;
                    synchronized (closing) {
                        closing.add(e);
                    }
                }
            }
        }
        try {
            check.accept(e.task);
        } catch (RuntimeException deleted) {
            // a task deleted meanwhile
        }
    }

    private void closeRemoved() {
        synchronized (closing) {
            for (Entry<T> e : closing) {
                if (e.notifier != null) {
                    e.notifier.close();
                }
            }
            closing.clear();
        }
    }
}
