package io.jrunc.bindings;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.FunctionDescriptor;

/**
 * The calling thread's root directory, working directory and umask. They belong to the process's
 * fs_struct, which every thread shares until it calls unshare(CLONE_FS); after that they are the
 * thread's own, and a container thread can chdir, chroot and pivot_root without moving the JVM.
 */
public final class FsContext {
    private FsContext() {}

    private static final NativeFunction CHDIR = Downcall.function("chdir", FunctionDescriptor.of(JAVA_INT, ADDRESS));
    private static final NativeFunction FCHDIR = Downcall.function("fchdir", FunctionDescriptor.of(JAVA_INT, JAVA_INT));
    private static final NativeFunction CHROOT = Downcall.function("chroot", FunctionDescriptor.of(JAVA_INT, ADDRESS));
    private static final NativeFunction UMASK = Downcall.function("umask", FunctionDescriptor.of(JAVA_INT, JAVA_INT));

    /** Gives the calling thread its own root, cwd and umask. */
    public static void unshare() {
        Namespaces.unshare(Namespaces.CLONE_FS);
    }

    public static void chdir(String path) {
        Calls.checked(CHDIR, "chdir", path, path);
    }

    public static void fchdir(int fd) {
        Calls.checked(FCHDIR, "fchdir", "fd " + fd, fd);
    }

    public static void chroot(String path) {
        Calls.checked(CHROOT, "chroot", path, path);
    }

    /** Sets the umask and returns the previous one. */
    public static int umask(int mask) {
        return (int) Calls.value(UMASK, mask);
    }
}
