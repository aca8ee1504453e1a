package io.jrunc.bindings;



/**
 * prctl(2). Every option used here acts on the calling thread: the bounding and ambient capability
 * sets, keep-caps and no_new_privs are all per-thread credentials, so a container thread can set them
 * without touching the rest of the JVM. Values from include/uapi/linux/prctl.h.
 */
public final class Prctl {
    private Prctl() {}

    public static final int PR_SET_PDEATHSIG = 1, PR_SET_DUMPABLE = 4, PR_SET_KEEPCAPS = 8,
            PR_CAPBSET_READ = 23, PR_CAPBSET_DROP = 24, PR_SET_CHILD_SUBREAPER = 36,
            PR_SET_NO_NEW_PRIVS = 38, PR_GET_NO_NEW_PRIVS = 39, PR_CAP_AMBIENT = 47;
    public static final int PR_CAP_AMBIENT_IS_SET = 1, PR_CAP_AMBIENT_RAISE = 2, PR_CAP_AMBIENT_LOWER = 3,
            PR_CAP_AMBIENT_CLEAR_ALL = 4;


    public static int prctl(int option, long a2, long a3, long a4, long a5) {
        // glibc's prctl is variadic; the raw system call takes the same five arguments.
        return (int) Syscalls.call("prctl", "option " + option, SyscallNumbers.PRCTL, option, a2, a3, a4, a5);
    }

    public static void setNoNewPrivileges() { prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); }

    public static void setDumpable(boolean dumpable) { prctl(PR_SET_DUMPABLE, dumpable ? 1 : 0, 0, 0, 0); }

    public static void setKeepCaps(boolean keep) { prctl(PR_SET_KEEPCAPS, keep ? 1 : 0, 0, 0, 0); }

    public static void setChildSubreaper() { prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); }

    public static void dropBoundingCapability(int cap) { prctl(PR_CAPBSET_DROP, cap, 0, 0, 0); }

    public static boolean inBoundingSet(int cap) { return prctl(PR_CAPBSET_READ, cap, 0, 0, 0) == 1; }

    public static void clearAmbient() { prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); }

    public static void raiseAmbient(int cap) { prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, cap, 0, 0); }
}
