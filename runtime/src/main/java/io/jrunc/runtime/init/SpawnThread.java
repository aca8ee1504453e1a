package io.jrunc.runtime.init;

import io.jrunc.bindings.Syscalls;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A dedicated platform thread that prepares itself (namespaces, root, credentials) and then spawns one
 * process, which waits at the exec gate. Never a virtual thread: namespaces, root and credentials
 * belong to the OS thread, and a carrier could change under a virtual one. The thread is spent
 * afterwards (wrong namespaces, dropped privileges) and simply ends.
 *
 * <p>Because the spawn does not return until the child has passed the gate, the creating thread
 * learns the child's pid from /proc/self/task/TID/children, which lists exactly the children this
 * thread created, oldest first.
 */
public final class SpawnThread {
    private final Thread thread;
    private volatile int tid;
    private volatile boolean spawning;
    private volatile Throwable failure;
    private volatile int exitedPid;
    private volatile int notTheChild;

    /** {@code body} prepares the thread, calls {@link #spawning()} right before it clones the child, and spawns. */
    public SpawnThread(String name, Body body) {
        this.thread = Thread.ofPlatform().name(name).daemon(true).unstarted(() -> {
            tid = Syscalls.gettid();
            try {
                exitedPid = body.run(this);
            } catch (Throwable t) {
                failure = t;
            }
        });
    }

    @FunctionalInterface
    public interface Body {
        int run(SpawnThread self) throws Exception;
    }

    public SpawnThread start() {
        openClassPath();
        thread.start();
        return this;
    }

    private static volatile boolean classPathOpen;

    /** Whether the class path is one jar (the launcher's, build/lib/jrunc.jar), not the modules' jars. */
    private static final boolean ONE_JAR = !System.getProperty("java.class.path", "").contains(java.io.File.pathSeparator);

    /**
     * Opens jrunc's own jars before a thread leaves the host's mount namespace or root. With the AOT
     * cache most classes never touch their jar, so a jar may still be unopened when the spawning
     * thread, now behind pivot_root or in the container's mount namespace, first needs a class the cache
     * lacks (an exception on an error path, say): its path no longer resolves there, and the load would
     * fail. An opened jar is read through its descriptor, wherever the thread's root is. Finding one
     * class of each module as a resource opens the class path in order up to that module's jar; the
     * third-party jars after them (jackson's, whose directories alone cost milliseconds to read) are left
     * closed, as nothing on the spawning thread uses them.
     */
    public static void openClassPath() {
        if (classPathOpen) {
            return;
        }
        // The launcher's one jar holds every module: one lookup opens it (each costs ~1 ms cold).
        List<Class<?>> oneOfEachJar = ONE_JAR ? List.of(SpawnThread.class) : List.of(SpawnThread.class,
                io.jrunc.bindings.Errno.class, io.jrunc.spec.Spec.class, io.jrunc.cgroups.Cgroup.class);
        for (Class<?> inEachJar : oneOfEachJar) {
            if (ClassLoader.getSystemResource(inEachJar.getName().replace('.', '/') + ".class") == null) {
                throw new IllegalStateException("class path without " + inEachJar.getName());
            }
        }
        classPathOpen = true;
    }

    /**
     * Opens the seccomp module's jar too, which comes after those in the class path: only a process
     * with a filter needs its classes on the spawning thread, and opening a jar costs every create.
     */
    static void openSeccompJar() {
        if (ONE_JAR) {
            return; // openClassPath opens it, before any spawning thread starts
        }
        if (ClassLoader.getSystemResource(io.jrunc.seccomp.Arch.class.getName().replace('.', '/') + ".class") == null) {
            throw new IllegalStateException("class path without " + io.jrunc.seccomp.Arch.class.getName());
        }
    }

    /**
     * Called by the body for a child it made before the process that is not the process (the holder
     * of a user namespace, {@link NamespaceHolder}): awaitChild skips it.
     */
    public void notTheChild(int pid) {
        notTheChild = pid;
    }

    /** Called by the body on its own thread just before it spawns. */
    public void spawning() {
        spawning = true;
    }

    public int tid() {
        return tid;
    }

    /**
     * Waits until the child exists (its pid) or the thread failed (rethrown). The child then sits at
     * the gate, already in its namespaces and with its credentials.
     */
    public int awaitChild(long timeoutMillis) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        long pause = 20_000; // ns; starts fine-grained, backs off to 1 ms
        while (System.nanoTime() < deadline) {
            if (spawning) {
                int pid = childOf(tid, notTheChild);
                if (pid > 0) {
                    return pid;
                }
            }
            if (!thread.isAlive()) {
                rethrowFailure();
                if (exitedPid > 0) {
                    return exitedPid;
                }
                throw new IllegalStateException(thread.getName() + " ended without spawning");
            }
            Thread.sleep(pause / 1_000_000, (int) (pause % 1_000_000));
            pause = Math.min(pause * 2, 1_000_000);
        }
        throw new IllegalStateException(thread.getName() + " did not spawn within " + timeoutMillis + " ms");
    }

    /**
     * Waits until the child says it waits at the create gate ({@link ChildReport}): it has opened the
     * exec gate's descriptor through the proc placeholder, so the finisher may now replace what it
     * walked. The pid appears as soon as the child is cloned, before its steps run.
     */
    public void awaitCreateGate(ChildReport report, long timeoutMillis) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        long pause = 20_000;
        while (!report.atCreateGate()) {
            if (!thread.isAlive()) {
                rethrowFailure();
                throw new IllegalStateException("container process exited before reaching the create gate");
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("container process did not reach the create gate within "
                        + timeoutMillis + " ms");
            }
            Thread.sleep(pause / 1_000_000, (int) (pause % 1_000_000));
            pause = Math.min(pause * 2, 1_000_000);
        }
    }

    /**
     * Waits until the child is blocked in the open of the exec gate FIFO, its last step before
     * execve. The kernel shows a task waiting for a FIFO's other end with wchan "wait_for_partner"
     * (fs/pipe.c); the child's only other wait, the create gate, is a pipe's read.
     */
    public void awaitGate(int pid, long timeoutMillis) throws Exception {
        Path wchan = Path.of("/proc", Integer.toString(pid), "wchan");
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        long pause = 20_000;
        while (System.nanoTime() < deadline) {
            try {
                if (Files.readString(wchan).trim().equals("wait_for_partner")) {
                    return;
                }
            } catch (IOException e) {
                // gone: the thread reports why below
            }
            if (!thread.isAlive()) {
                rethrowFailure();
                throw new IllegalStateException("container process exited before reaching the exec gate");
            }
            Thread.sleep(pause / 1_000_000, (int) (pause % 1_000_000));
            pause = Math.min(pause * 2, 1_000_000);
        }
        throw new IllegalStateException("container process did not reach the exec gate within " + timeoutMillis + " ms");
    }

    private void rethrowFailure() throws Exception {
        Throwable t = failure;
        if (t instanceof Exception e) {
            throw e;
        }
        if (t instanceof Error e) {
            throw e;
        }
    }

    static int childOf(int tid) {
        return childOf(tid, 0);
    }

    /** The first child of {@code tid} that is not {@code other}, or 0. */
    static int childOf(int tid, int other) {
        try {
            String text = Files.readString(Path.of("/proc/self/task/" + tid + "/children")).trim();
            if (text.isEmpty()) {
                return 0;
            }
            int space = text.indexOf(' ');
            int first = Integer.parseInt(space < 0 ? text : text.substring(0, space));
            if (first != other) {
                return first;
            }
            // the kernel lists a task's children oldest first: the process comes after the holder
            int second = space < 0 ? -1 : text.indexOf(' ', space + 1);
            return space < 0 ? 0 : Integer.parseInt(second < 0 ? text.substring(space + 1) : text.substring(space + 1, second));
        } catch (IOException | NumberFormatException e) {
            return 0;
        }
    }
}
