package io.jrunc.bindings;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;

/** Process-level calls: identity, signals, waiting, resource limits, pidfds. */
public final class Processes {
    private Processes() {}

    public static final int WNOHANG = 1, WUNTRACED = 2, WEXITED = 4, WNOWAIT = 0x01000000, __WALL = 0x40000000;
    public static final int RLIM_NLIMITS = 16;
    public static final long RLIM_INFINITY = -1L;

    // struct rlimit {rlim_cur, rlim_max}
    static final long RLIMIT_SIZE = 16, RLIM_CUR = 0, RLIM_MAX = 8;

    private static final NativeFunction GETPID = Downcall.function("getpid", FunctionDescriptor.of(JAVA_INT));
    private static final NativeFunction KILL = Downcall.function("kill", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT));
    private static final NativeFunction WAITPID = Downcall.function("waitpid",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT));
    private static final NativeFunction WAITID = Downcall.function("waitid",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT));
    // waitid's siginfo_t: 128 bytes; for SIGCHLD, si_pid at 16 (after si_signo, si_errno, si_code and
    // the union's alignment on a 64-bit ABI)
    static final long SIGINFO_SIZE = 128, SI_PID = 16;
    public static final int P_ALL = 0, P_PID = 1;
    private static final NativeFunction PRLIMIT = Downcall.function("prlimit",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, ADDRESS, ADDRESS));
    private static final NativeFunction EXIT = Downcall.function("_exit", FunctionDescriptor.ofVoid(JAVA_INT));
    private static final NativeFunction SETSID = Downcall.function("setsid", FunctionDescriptor.of(JAVA_INT));

    public static int getpid() {
        return (int) Calls.value(GETPID);
    }

    public static void kill(int pid, int signal) {
        Calls.checked(KILL, "kill", Integer.toString(pid), pid, signal);
    }

    /** waitpid(2): the pid and raw status, or null with WNOHANG when the child has not changed state. */
    public static WaitStatus waitpid(int pid, int options) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment status = arena.allocate(JAVA_INT);
            while (true) {
                try {
                    int r = Calls.checked(WAITPID, "waitpid", Integer.toString(pid), pid, status, options);
                    return r == 0 ? null : new WaitStatus(r, status.get(JAVA_INT, 0));
                } catch (ErrnoException e) {
                    if (!e.is(Errno.EINTR)) {
                        throw e;
                    }
                }
            }
        }
    }

    /**
     * waitid(2) with WEXITED | WNOWAIT and {@code options} (__WALL, WNOHANG): the pid of a child that
     * has ended, left waitable, so that it stays a zombie (its /proc entry with it) until a waitpid
     * reaps it; 0 with WNOHANG when none has ended.
     */
    public static int waitEnded(int idType, int id, int options) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment info = arena.allocate(SIGINFO_SIZE, 8);
            while (true) {
                try {
                    Calls.checked(WAITID, "waitid", idType == P_ALL ? "any child" : Integer.toString(id), idType, id, info,
                            WEXITED | WNOWAIT | options);
                    return info.get(JAVA_INT, SI_PID);
                } catch (ErrnoException e) {
                    if (!e.is(Errno.EINTR)) {
                        throw e;
                    }
                }
            }
        }
    }

    /** The decoded status of a child that changed state (see wait(2)). */
    public record WaitStatus(int pid, int raw) {
        public boolean exited() { return (raw & 0x7f) == 0; }
        public int exitCode() { return (raw >> 8) & 0xff; }
        public boolean signaled() { return ((raw & 0x7f) + 1) >> 1 > 0 && (raw & 0x7f) != 0x7f; }
        public int signal() { return raw & 0x7f; }
        /** The shell's convention, which runc uses for `run`: the exit code, or 128 + signal. */
        public int shellStatus() { return exited() ? exitCode() : 128 + signal(); }
    }

    /** prlimit(2) on another process; the caller's thread credentials decide whether it is allowed. */
    public static void prlimit(int pid, int resource, long soft, long hard) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment limit = arena.allocate(RLIMIT_SIZE, 8);
            limit.set(JAVA_LONG, RLIM_CUR, soft);
            limit.set(JAVA_LONG, RLIM_MAX, hard);
            Calls.checked(PRLIMIT, "prlimit", "pid " + pid + " resource " + resource, pid, resource, limit,
                    MemorySegment.NULL);
        }
    }

    /** {soft, hard} of a process's limit. */
    public static long[] getrlimit(int pid, int resource) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment old = arena.allocate(RLIMIT_SIZE, 8);
            Calls.checked(PRLIMIT, "prlimit", "pid " + pid, pid, resource, MemorySegment.NULL, old);
            return new long[] {old.get(JAVA_LONG, RLIM_CUR), old.get(JAVA_LONG, RLIM_MAX)};
        }
    }

    public static int pidfdOpen(int pid) {
        return (int) Syscalls.call("pidfd_open", Integer.toString(pid), SyscallNumbers.PIDFD_OPEN, pid, 0);
    }

    /** pidfd_getfd(2): a duplicate, close-on-exec, of descriptor {@code fd} of the process behind {@code pidfd}. */
    public static int pidfdGetfd(int pidfd, int fd) {
        return (int) Syscalls.call("pidfd_getfd", "fd " + fd, SyscallNumbers.PIDFD_GETFD, pidfd, fd, 0);
    }

    public static void pidfdSendSignal(int pidfd, int signal) {
        Syscalls.call("pidfd_send_signal", "pidfd " + pidfd, SyscallNumbers.PIDFD_SEND_SIGNAL, pidfd, signal, 0, 0);
    }

    /**
     * _exit(2): ends the process at once, without the JVM's shutdown sequence. The caller flushes what
     * it wrote first; no shutdown hooks run.
     */
    public static void exitNow(int status) {
        Calls.value(EXIT, status);
        throw new AssertionError("_exit returned");
    }

    public static int setsid() {
        return Calls.checked(SETSID, "setsid", null);
    }
}
