package io.jrunc.runtime.init;

import static io.jrunc.bindings.Namespaces.*;

import io.jrunc.bindings.ErrnoException;
import io.jrunc.bindings.FileDescriptors;
import io.jrunc.bindings.LibcChain;
import io.jrunc.bindings.Processes;
import io.jrunc.bindings.Signals;
import io.jrunc.seccomp.Arch;
import io.jrunc.seccomp.SyscallTable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A process that holds a container's user namespace, and the namespaces owned by it, while create
 * builds the container around it. No JVM thread can create or join a user namespace (the kernel wants
 * a single-threaded caller), and a namespace created by a thread is owned by that thread's user
 * namespace; so a libc-only child ({@link LibcChain}) creates the user namespace (clone with
 * CLONE_NEWUSER) or joins the one given by path (setns), unshares the other namespaces the config
 * creates, which makes the user namespace their owner, says so on a pipe and blocks reading another.
 * The spawning thread writes the maps from outside, checks from outside what the holder did (a chain
 * sees no step fail), and joins the holder's namespaces with setns, which root may do in namespaces
 * owned by a user namespace it created; the container's own process joins the user namespace itself.
 *
 * <p>{@link #close} releases and reaps the holder. If the JVM dies first, the release pipe's only write
 * end closes with it, the holder's read returns and it exits: a killed create leaves no holder behind.
 */
public final class NamespaceHolder implements AutoCloseable {
    /** The kinds the holder may create besides the user namespace, with their /proc/PID/ns names. */
    private static final int[] FLAGS = {CLONE_NEWIPC, CLONE_NEWUTS, CLONE_NEWNET, CLONE_NEWNS, CLONE_NEWCGROUP};
    private static final String[] KINDS = {"ipc", "uts", "net", "mnt", "cgroup"};
    private static final long KERNEL_SIGACTION_SIZE = 32;
    private static final long READY_TIMEOUT_MILLIS = 60_000;

    private final int pid;
    private final int flags;
    private int ready;
    private int release;
    private boolean closed;
    /** The holder's chain, whose memory it runs on: reachable (not freed) until the holder is reaped. */
    private LibcChain memory;

    private NamespaceHolder(int pid, int flags, int ready, int release, LibcChain memory) {
        this.memory = memory;
        this.pid = pid;
        this.flags = flags;
        this.ready = ready;
        this.release = release;
    }

    /**
     * Clones the holder from the calling thread, in the thread's namespaces and cgroup (a cgroup
     * namespace is rooted where its creator is).
     *
     * @param userNamespace a descriptor of the user namespace to join, or -1 for a new one
     * @param unshare the namespaces to create in it
     * @param handledSignals the signals the JVM catches or ignores, set back to their default in the holder
     */
    public static NamespaceHolder start(int userNamespace, int unshare, long handledSignals) {
        int[] readyPipe = FileDescriptors.pipe(FileDescriptors.O_CLOEXEC);
        int[] releasePipe;
        try {
            releasePipe = FileDescriptors.pipe(FileDescriptors.O_CLOEXEC);
        } catch (RuntimeException e) {
            FileDescriptors.closeQuietly(readyPipe[0]);
            FileDescriptors.closeQuietly(readyPipe[1]);
            throw e;
        }
        int pid;
        // CLONE_VM, as the container's process is cloned: a fork-like copy of the JVM's memory cost
        // create 55-70 ms here (the page tables copied, then every page the JVM writes while the
        // holder lives copied again), against under 10 ms. The holder so runs on the JVM's memory:
        // its chain's memory is an automatic arena, kept reachable by this object until the holder is
        // reaped; every step is a raw syscall (no cancellation point touches the thread's libc state,
        // which is the spawning thread's); a failing step sets that thread's errno, which only a
        // create failing anyway (the checks below) can see; and the JVM's signal handlers are reset
        // first, while the JVM thread's mask still blocks its asynchronous signals.
        // No CLONE_VFORK: this thread goes on while the holder waits.
        LibcChain chain = new LibcChain(java.lang.foreign.Arena.ofAuto());
        try {
            SyscallTable table = Arch.nativeArch().table();
            long dfl = chain.zeroed(KERNEL_SIGACTION_SIZE);
            for (int sig = 1; sig <= Signals.MAX; sig++) {
                if (sig != Signals.SIGKILL && sig != Signals.SIGSTOP && (handledSignals & (1L << (sig - 1))) != 0) {
                    chain.syscall(table.number("rt_sigaction"), sig, dfl, 0, 8);
                }
            }
            // Only the pipes' ends it uses (and the namespace's descriptor) stay open: a copy of the
            // release pipe's write end, of the create gate's or of the caller's stdout would keep them
            // open as long as the holder lives.
            int[] keep = userNamespace >= 0 ? new int[] {readyPipe[1], releasePipe[0], userNamespace}
                    : new int[] {readyPipe[1], releasePipe[0]};
            Arrays.sort(keep);
            long from = 0;
            for (int fd : keep) {
                if (fd > from) {
                    chain.syscall(table.number("close_range"), from, fd - 1, 0);
                }
                from = fd + 1L;
            }
            chain.syscall(table.number("close_range"), from, 0xffffffffL, 0);
            if (userNamespace >= 0) {
                // single-threaded and sharing no fs_struct: the kernel lets the holder join
                chain.syscall(table.number("setns"), userNamespace, CLONE_NEWUSER);
                chain.syscall(table.number("close"), userNamespace);
            }
            if (unshare != 0) {
                chain.syscall(table.number("unshare"), unshare);
            }
            long buffer = chain.zeroed(8);
            chain.syscall(table.number("write"), readyPipe[1], buffer, 1);
            chain.syscall(table.number("close"), readyPipe[1]);
            chain.syscall(table.number("read"), releasePipe[0], buffer, 1);
            pid = chain.run(LibcChain.CLONE_VM | (userNamespace >= 0 ? 0 : CLONE_NEWUSER));
        } catch (RuntimeException e) {
            for (int fd : new int[] {readyPipe[0], readyPipe[1], releasePipe[0], releasePipe[1]}) {
                FileDescriptors.closeQuietly(fd);
            }
            throw e;
        }
        FileDescriptors.closeQuietly(readyPipe[1]);
        FileDescriptors.closeQuietly(releasePipe[0]);
        return new NamespaceHolder(pid, unshare, readyPipe[0], releasePipe[1], chain);
    }

    public int pid() {
        return pid;
    }

    /** Waits until the holder has made its namespaces; fails if it died before. */
    public void awaitReady() {
        short events = FileDescriptors.poll(ready, FileDescriptors.POLLIN, (int) READY_TIMEOUT_MILLIS);
        byte[] one = new byte[1];
        if (events == 0) {
            throw new IllegalStateException("the user namespace's holder did not start within " + READY_TIMEOUT_MILLIS + " ms");
        }
        if (FileDescriptors.read(ready, one, 1) != 1) {
            throw new IllegalStateException("the user namespace's holder exited before making its namespaces");
        }
        FileDescriptors.closeQuietly(ready);
        ready = -1;
    }

    /**
     * Checks from outside that the holder is where it was meant to be: in a user namespace other than
     * the runtime's, or in the one {@code joined} names (same device and inode), and in a namespace of
     * its own of every kind it was to create, with a pid namespace for its children other than its own.
     *
     * @param joined the user namespace's path from the config, or null for a new one
     * @param where the config's field for errors ("linux.namespaces[i]")
     */
    public void verify(String joined, String where) {
        Path self = Path.of("/proc/thread-self/ns");
        Path theirs = Path.of("/proc", Integer.toString(pid), "ns");
        try {
            if (joined == null) {
                if (link(theirs, "user").equals(link(self, "user"))) {
                    throw new IllegalStateException("the user namespace's holder did not create a user namespace");
                }
            } else if (!sameFile(theirs.resolve("user"), Path.of(joined))) {
                throw new IllegalArgumentException(where + ".path: " + joined + " is not a user namespace");
            }
            for (int i = 0; i < FLAGS.length; i++) {
                if ((flags & FLAGS[i]) != 0 && link(theirs, KINDS[i]).equals(link(self, KINDS[i]))) {
                    throw new IllegalStateException("the user namespace's holder did not create its " + KINDS[i]
                            + " namespace");
                }
            }
            if ((flags & CLONE_NEWPID) != 0 && link(theirs, "pid_for_children").equals(link(theirs, "pid"))) {
                throw new IllegalStateException("the user namespace's holder did not create its pid namespace");
            }
        } catch (IOException e) {
            throw new UncheckedIOException("namespaces of the user namespace's holder " + pid, e);
        }
    }

    /** A namespace descriptor of the holder's ("user", "mnt", "pid_for_children"...), close-on-exec. */
    public int open(String kind) {
        return FileDescriptors.open("/proc/" + pid + "/ns/" + kind, FileDescriptors.O_RDONLY | FileDescriptors.O_CLOEXEC);
    }

    /**
     * Joins the calling thread to the holder's namespaces other than user and pid (the mount namespace
     * needs the thread's own fs context: FsContext.unshare first). Every descriptor is opened before the
     * first join, while the host's /proc is still the thread's.
     */
    public void joinCreated() {
        List<int[]> opened = new ArrayList<>();
        try {
            for (int i = 0; i < FLAGS.length; i++) {
                if ((flags & FLAGS[i]) != 0) {
                    opened.add(new int[] {open(KINDS[i]), FLAGS[i]});
                }
            }
            for (int[] o : opened) {
                io.jrunc.bindings.Namespaces.setns(o[0], o[1], "namespace of the user namespace's holder");
            }
        } finally {
            for (int[] o : opened) {
                FileDescriptors.closeQuietly(o[0]);
            }
        }
    }

    /** Releases the holder and waits for it; safe to call more than once and from any thread. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        FileDescriptors.closeQuietly(ready);
        FileDescriptors.closeQuietly(release); // EOF: the holder's read returns and it exits
        try {
            ChildWaits.waitpid(pid, Processes.__WALL);
        } catch (ErrnoException e) {
            // reaped already
        }
        memory = null; // the holder is gone: its memory may be freed
    }

    private static String link(Path dir, String kind) throws IOException {
        return Files.readSymbolicLink(dir.resolve(kind)).toString();
    }

    private static boolean sameFile(Path a, Path b) throws IOException {
        try {
            return Files.getAttribute(a, "unix:dev").equals(Files.getAttribute(b, "unix:dev"))
                    && Files.getAttribute(a, "unix:ino").equals(Files.getAttribute(b, "unix:ino"));
        } catch (java.nio.file.NoSuchFileException e) {
            return false;
        }
    }
}
