package io.jrunc.cgroups;

import io.jrunc.bindings.ErrnoException;
import io.jrunc.bindings.FileDescriptors;
import java.nio.file.Path;

/**
 * Wakes a watcher when a container's cgroup may have had an OOM kill, so it need not poll the
 * counters ({@link Cgroup#oomEvents}, which the watcher reads again after each wake-up):
 * <ul>
 * <li>cgroup v1: the memory controller's OOM notifier, an eventfd registered through
 *     {@code cgroup.event_control} with a descriptor of {@code memory.oom_control}; the kernel signals
 *     it when the cgroup enters OOM, and when the cgroup is removed;</li>
 * <li>cgroup v2: {@code memory.events} polled for POLLPRI, which kernfs raises whenever the file's
 *     content changes (an {@code oom_kill} among them).</li>
 * </ul>
 */
public final class OomNotifier implements AutoCloseable {
    private final int waitFd;
    private final short events;
    private final int[] others;
    private final boolean eventfd;

    private OomNotifier(int waitFd, short events, boolean eventfd, int... others) {
        this.waitFd = waitFd;
        this.events = events;
        this.eventfd = eventfd;
        this.others = others;
    }

    /** For a cgroup; null when it has no memory controller to watch. */
    public static OomNotifier open(Cgroup cgroup) throws CgroupException {
        try {
            return switch (cgroup) {
                case CgroupV1 v1 -> {
                    Path memory = v1.byController().get("memory");
                    yield memory == null ? null : v1Notifier(memory);
                }
                case CgroupV2 v2 -> {
                    int fd = FileDescriptors.open(v2.dir().resolve("memory.events").toString(),
                            FileDescriptors.O_RDONLY | FileDescriptors.O_CLOEXEC);
                    yield new OomNotifier(fd, (short) (FileDescriptors.POLLPRI | FileDescriptors.POLLERR), false);
                }
            };
        } catch (ErrnoException e) {
            throw new CgroupException("watching OOM kills: " + e.getMessage(), e);
        }
    }

    private static OomNotifier v1Notifier(Path memory) {
        int control = FileDescriptors.open(memory.resolve("memory.oom_control").toString(),
                FileDescriptors.O_RDONLY | FileDescriptors.O_CLOEXEC);
        int efd = -1;
        int register = -1;
        try {
            efd = FileDescriptors.eventfd(0, FileDescriptors.EFD_CLOEXEC);
            register = FileDescriptors.open(memory.resolve("cgroup.event_control").toString(),
                    FileDescriptors.O_WRONLY | FileDescriptors.O_CLOEXEC);
            FileDescriptors.write(register, (efd + " " + control).getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            return new OomNotifier(efd, FileDescriptors.POLLIN, true, control);
        } catch (ErrnoException e) {
            FileDescriptors.closeQuietly(efd);
            FileDescriptors.closeQuietly(control);
            throw e;
        } finally {
            FileDescriptors.closeQuietly(register);
        }
    }

    /**
     * Waits up to {@code timeoutMillis} for a notification; true when one came (consumed, so the next
     * wait blocks again), false on the timeout.
     */
    public boolean await(int timeoutMillis) {
        short revents = FileDescriptors.poll(waitFd, events, timeoutMillis);
        if (revents == 0) {
            return false;
        }
        if (eventfd) {
            FileDescriptors.read(waitFd, new byte[8], 8);
        } else {
            // kernfs re-arms POLLPRI once the file has been read again from its start
            FileDescriptors.lseekStart(waitFd);
            FileDescriptors.read(waitFd, new byte[4096], 4096);
        }
        return true;
    }

    @Override
    public void close() {
        FileDescriptors.closeQuietly(waitFd);
        for (int fd : others) {
            FileDescriptors.closeQuietly(fd);
        }
    }
}
