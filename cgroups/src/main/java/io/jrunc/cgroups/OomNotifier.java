package io.jrunc.cgroups;

import io.jrunc.bindings.ErrnoException;
import io.jrunc.bindings.EventFds;
import io.jrunc.bindings.FileDescriptors;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The kernel's notice that a cgroup's memory counters changed, as a descriptor to poll(2), so that a
 * watcher sleeps until something happened rather than reading every cgroup's counters on a clock.
 * The notice only wakes: {@link Cgroup#oomEvents()} stays the truth (a wake-up may come for a
 * counter that is not an OOM kill, and a burst of kills may come as one wake-up).
 *
 * <ul>
 * <li>cgroup v1: an eventfd registered in {@code cgroup.event_control} for {@code memory.oom_control}
 * (the memory controller's OOM notifier, as runc's and containerd's v1 watchers use it); readable
 * (POLLIN) after each OOM in the group, and once more when the group is removed.</li>
 * <li>cgroup v2: {@code memory.events} itself, open: the kernel flags a change of the file to poll as
 * POLLPRI, until the file is read again through the same descriptor.</li>
 * </ul>
 * {@link #rearm} after each wake-up, before reading the counters, so a change that comes in between
 * wakes the next poll.
 */
public final class OomNotifier implements AutoCloseable {
    private final Path file;
    private final boolean v1;
    private int fd;

    private OomNotifier(Path file, boolean v1, int fd) {
        this.file = file;
        this.v1 = v1;
        this.fd = fd;
    }

    static OomNotifier v1(Path memoryDir) throws CgroupException {
        Path control = memoryDir.resolve("memory.oom_control");
        int eventFd = EventFds.create();
        int controlFd = -1;
        try {
            controlFd = FileDescriptors.open(control.toString(), FileDescriptors.O_RDONLY | FileDescriptors.O_CLOEXEC);
            // the registration holds the eventfd; the control file is needed only while writing it
            Files.writeString(memoryDir.resolve("cgroup.event_control"), eventFd + " " + controlFd);
            return new OomNotifier(control, true, eventFd);
        } catch (ErrnoException | java.io.IOException e) {
            FileDescriptors.closeQuietly(eventFd);
            throw new CgroupException("cannot register an OOM notifier for " + control + ": " + e.getMessage(), e);
        } finally {
            if (controlFd >= 0) {
                FileDescriptors.closeQuietly(controlFd);
            }
        }
    }

    static OomNotifier v2(Path dir) throws CgroupException {
        Path events = dir.resolve("memory.events");
        return new OomNotifier(events, false, openAndRead(events));
    }

    /** memory.events opened and read once: the read is what the kernel's change flag compares with. */
    private static int openAndRead(Path events) throws CgroupException {
        int fd;
        try {
            fd = FileDescriptors.open(events.toString(), FileDescriptors.O_RDONLY | FileDescriptors.O_CLOEXEC);
        } catch (ErrnoException e) {
            throw new CgroupException("cannot watch " + events + ": " + e.getMessage(), e);
        }
        try {
            FileDescriptors.read(fd, new byte[512], 512);
            return fd;
        } catch (ErrnoException e) {
            FileDescriptors.closeQuietly(fd);
            throw new CgroupException("cannot read " + events + ": " + e.getMessage(), e);
        }
    }

    /** The descriptor to poll now (on cgroup v2 it changes at each {@link #rearm}). */
    public int fd() {
        return fd;
    }

    /** The poll(2) events that mean "look at the counters". */
    public short events() {
        return v1 ? FileDescriptors.POLLIN : FileDescriptors.POLLPRI;
    }

    /**
     * Takes the notice, so the next poll waits for the next change: the eventfd drained (v1), or
     * memory.events read afresh on a new descriptor (v2: a read at the end of the file would not
     * clear the flag). Throws once the cgroup is gone.
     */
    public void rearm() throws CgroupException {
        if (v1) {
            EventFds.drain(fd);
            if (!Files.exists(file)) {
                throw new CgroupException("cgroup removed: " + file.getParent());
            }
        } else {
            int next = openAndRead(file);
            FileDescriptors.closeQuietly(fd);
            fd = next;
        }
    }

    @Override
    public void close() {
        FileDescriptors.closeQuietly(fd);
    }
}
