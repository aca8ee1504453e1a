package io.jrunc.bindings;

import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.FunctionDescriptor;
import java.lang.invoke.MethodHandle;

/**
 * unshare(2) and setns(2). Both act on the calling thread only (for pid and time namespaces: on the
 * children it creates next), which is what lets one JVM thread build a container while the others
 * stay in the host's namespaces. Flag values from include/uapi/linux/sched.h.
 */
public final class Namespaces {
    private Namespaces() {}

    public static final int CLONE_NEWTIME = 0x80, CLONE_FS = 0x200, CLONE_FILES = 0x400,
            CLONE_SYSVSEM = 0x40000, CLONE_NEWNS = 0x20000, CLONE_NEWCGROUP = 0x02000000,
            CLONE_NEWUTS = 0x04000000, CLONE_NEWIPC = 0x08000000, CLONE_NEWUSER = 0x10000000,
            CLONE_NEWPID = 0x20000000, CLONE_NEWNET = 0x40000000;

    private static final NativeFunction UNSHARE = Downcall.function("unshare",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT));
    private static final NativeFunction SETNS = Downcall.function("setns",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT));

    public static void unshare(int flags) {
        Calls.checked(UNSHARE, "unshare", "0x" + Integer.toHexString(flags), flags);
    }

    /** setns(2) with the namespace type checked by the kernel ({@code nstype} 0 accepts any). */
    public static void setns(int fd, int nstype, String what) {
        Calls.checked(SETNS, "setns", what, fd, nstype);
    }
}
