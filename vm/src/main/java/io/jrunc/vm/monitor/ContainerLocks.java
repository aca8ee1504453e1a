package io.jrunc.vm.monitor;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One lock per container id, held by the monitor around what changes a container's presence in the
 * guest (AddContainer, RemoveContainer). A removal that comes while a create of the same container is
 * still hot-plugging or creating (its caller was killed or gave up, and `rm -f` followed) waits for it
 * and then removes what it made, rather than finding nothing and leaving a container the host no
 * longer knows. A lock is dropped when no call holds or waits for it.
 */
final class ContainerLocks {
    private final Map<String, Entry> locks = new HashMap<>();

    private static final class Entry {
        final ReentrantLock lock = new ReentrantLock();
        int users;
    }

    /** Held until closed. */
    interface Held extends AutoCloseable {
        @Override
        void close();
    }

    Held hold(String id) {
        Entry e;
        synchronized (locks) {
            e = locks.computeIfAbsent(id, k -> new Entry());
            e.users++;
        }
        e.lock.lock();
        return () -> {
            e.lock.unlock();
            synchronized (locks) {
                if (--e.users == 0) {
                    locks.remove(id);
                }
            }
        };
    }
}
