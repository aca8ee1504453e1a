package io.jrunc.runtime.init;

import io.jrunc.bindings.Capabilities;
import io.jrunc.bindings.FileDescriptors;
import io.jrunc.bindings.LibcChain;
import io.jrunc.bindings.Prctl;
import io.jrunc.bindings.Signals;
import io.jrunc.seccomp.Arch;
import io.jrunc.seccomp.CompiledFilter;
import io.jrunc.seccomp.SyscallTable;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The container's process (create's and exec's) made by a chain of libc calls: no Java runs in the
 * child, and the child does the steps that posix_spawn's attributes and file actions could not (a
 * seccomp filter, docs/seccomp.md; waiting for the creator between steps; saying why a step failed). In
 * this order:
 *
 * <ol>
 *   <li>with a cgroup gate: wait until the creator moved it into its cgroup ({@link ChildCgroupEntry});
 *   <li>with a user namespace: join it (setns of a descriptor the spawning thread opened), first of
 *       all that depends on it: every later step (the filter's load, which needs CAP_SYS_ADMIN, and a
 *       filter may deny setns; the credentials, which are then the container's ids) runs inside it;
 *   <li>every signal the JVM catches or ignores back to its default (until then the JVM thread's mask
 *       is kept, which blocks the JVM's asynchronous signals, so no JVM handler can run in the child);
 *   <li>a new session; the pty slave (or the request's explicit streams) as stdin, stdout and stderr;
 *       the preserved descriptors kept; every other descriptor closed but the create gate;
 *   <li>without no_new_privs: the filter (it needs CAP_SYS_ADMIN, so before the credentials);
 *   <li>the exec gate's O_PATH descriptor: for create opened by its path through the proc placeholder
 *       (RootfsBuilder), for exec duplicated from the runtime's;
 *   <li>create only, the create gate: the child says it is there ({@link ChildReport}) and reads the
 *       create gate's pipe, which the creator writes once the root is final (procfs in place, the
 *       mounts after it made again: MountOrder);
 *   <li>create of a container without a mount namespace: a detached copy of the root, the runtime's
 *       mount namespace joined, the copy made the root ({@link SharedMountNamespace}); then, without
 *       no_new_privs, the filter;
 *   <li>the working directory, entered as runc enters it: first with the runtime's identity, then
 *       (when that was refused) again with the process's; each chdir's errno copied to the report;
 *   <li>the credentials in {@link ProcessCredentials}'s order;
 *   <li>with no_new_privs: no_new_privs and the filter;
 *   <li>signals unblocked; the exec gate opened for writing (blocks until start); execve;
 *   <li>only if execve returned: its errno and the program's path written to the exec gate, where
 *       start (or exec) reads them ({@link ExecFailure}); _exit(127).
 * </ol>
 *
 * <p>A chain does not check its steps. {@link ChildStatus} verifies from /proc, while the child waits at
 * the exec gate, that every step took effect, and {@link ChildReport} says how the chdirs went, before
 * create or exec reports success. The syscalls after the filter is loaded are recorded
 * ({@link #afterLoad()}) so that create can run the filter over exactly those before it spawns
 * ({@link PreExecCheck}).
 */
public final class ChainSpawn implements AutoCloseable {
    /** A syscall made after the filter is loaded, with the arguments it is made with. */
    public record Call(String name, long[] args) {}

    /**
     * How the child reaches the exec FIFO, and create's gate before it.
     *
     * @param path       for create: the FIFO's path in the container's root (PROC/self/fd/N, which the
     *                   proc placeholder binds to the FIFO and the real procfs resolves to descriptor N,
     *                   the O_PATH one), or null
     * @param opathFd    for exec: the runtime's O_PATH descriptor of the FIFO, reopened via the
     *                   container's /proc/self/fd; or -1
     * @param createGate for create: the read end of the pipe the child waits on until the root is final;
     *                   or -1
     * @param sharedMountNs for create of a container without a mount namespace: a descriptor of the
     *                   runtime's mount namespace, which the child joins once the root is final
     *                   ({@link SharedMountNamespace}); or -1
     */
    public record Gates(String path, int opathFd, int createGate, int sharedMountNs) {
        public Gates(String path, int opathFd, int createGate) {
            this(path, opathFd, createGate, -1);
        }
    }

    private static final int SECCOMP_SET_MODE_FILTER = 1;
    private static final long KERNEL_SIGACTION_SIZE = 32; // x86-64 and aarch64: handler, flags, restorer, mask
    private static final int CLONE_NEWCGROUP = 0x02000000, CLONE_NEWUSER = 0x10000000;

    private final LibcChain chain = new LibcChain();
    private final SyscallTable table = Arch.nativeArch().table();
    private final List<Call> afterLoad = new ArrayList<>();
    private boolean loaded;

    private ChainSpawn() {}

    /**
     * Builds the chain. With {@code cgroupGate} >= 0 the child's first step reads one byte from that
     * pipe: it waits there until its creator has moved it into the container's cgroup; with
     * {@code unshareCgroup} it then creates its cgroup namespace. {@code filter} may be null (no
     * seccomp: no load, nothing recorded).
     */
    public static ChainSpawn of(SpawnRequest request, Gates gates, String ptySlave, ProcessCredentials credentials,
            FilterCompilation.Loadable filter, ChildStatus.Runtime runtime, int cgroupGate, boolean unshareCgroup,
            ChildReport report) {
        return of(request, gates, ptySlave, credentials, filter, runtime, cgroupGate, unshareCgroup, report, -1);
    }

    /**
     * As above; with {@code userNamespace} >= 0 (a close-on-exec descriptor the caller closes after the
     * spawn) the child joins that user namespace before any other step that depends on it.
     */
    public static ChainSpawn of(SpawnRequest request, Gates gates, String ptySlave, ProcessCredentials credentials,
            FilterCompilation.Loadable filter, ChildStatus.Runtime runtime, int cgroupGate, boolean unshareCgroup,
            ChildReport report, int userNamespace) {
        ChainSpawn spawn = new ChainSpawn();
        spawn.build(request, gates, ptySlave, credentials, filter == null ? null : filter.filter(),
                filter == null ? null : filter.programBytes(), runtime, cgroupGate, unshareCgroup, report,
                userNamespace);
        return spawn;
    }

    /** The syscalls the child makes after loading the filter, in order. */
    public List<Call> afterLoad() {
        return List.copyOf(afterLoad);
    }

    /**
     * Clones the child with CLONE_VM|CLONE_VFORK, as posix_spawn does (this thread resumes once the child
     * has exec'd or exited), and returns its pid. A CLONE_VM child keeps the thread's time namespace
     * until execve, which moves it into the thread's namespace for children (a new or joined time
     * namespace), as it does posix_spawn's child.
     */
    public int spawn() {
        return chain.run(LibcChain.CLONE_VM | LibcChain.CLONE_VFORK, 127);
    }

    @Override
    public void close() {
        chain.close();
    }

    /** The lowest descriptor after the preserved ones (3 .. 3+preserveFds-1). */
    static int lowestFree(int preserveFds) {
        return 3 + preserveFds;
    }

    /**
     * Where the child holds the exec gate's O_PATH descriptor when the gate is a path (create): after
     * the preserved descriptors, and after the seccomp listener when the filter has one (the lowest free
     * descriptor when the filter is loaded).
     */
    public static int gateFd(int preserveFds, boolean usesNotify) {
        return lowestFree(preserveFds) + (usesNotify ? 1 : 0);
    }

    /** The descriptor the child holds the seccomp listener at (close-on-exec, as the kernel makes it). */
    public static int listenerFd(int preserveFds, boolean exec) {
        return lowestFree(preserveFds) + (exec ? 1 : 0);
    }

    private void build(SpawnRequest request, Gates gates, String ptySlave, ProcessCredentials credentials,
            CompiledFilter filter, byte[] programBytes, ChildStatus.Runtime runtime, int cgroupGate,
            boolean unshareCgroup, ChildReport report, int userNamespace) {
        if (cgroupGate >= 0) {
            // nothing of the container's runs before the creator has moved this child into its cgroup
            chain.call("read", cgroupGate, chain.zeroed(8), 1);
            chain.call("close", cgroupGate);
        }
        if (userNamespace >= 0) {
            // Before the descriptors are rearranged (the dup2s below could land on it) and closed. The
            // child is single-threaded and shares no fs_struct, as the kernel requires. Its ids stay
            // the runtime's (host root, unmapped inside) until the credentials below; a cgroup
            // namespace it creates is owned by the user namespace.
            sys("setns", userNamespace, CLONE_NEWUSER);
        }
        if (cgroupGate >= 0) {
            if (unshareCgroup) {
                sys("unshare", CLONE_NEWCGROUP);
            }
        }
        long handled = runtime.handledSignals();
        int low = lowestFree(request.preserveFds());
        boolean notify = filter != null && filter.usesNotify();
        boolean nnp = credentials.noNewPrivileges();
        long dfl = chain.zeroed(KERNEL_SIGACTION_SIZE); // SIG_DFL, no flags, empty mask
        for (int sig = 1; sig <= Signals.MAX; sig++) {
            if (sig != Signals.SIGKILL && sig != Signals.SIGSTOP && (handled & (1L << (sig - 1))) != 0) {
                sys("rt_sigaction", sig, dfl, 0, 8);
            }
        }
        chain.call("setsid");
        if (ptySlave != null) {
            // Opened after setsid and without O_NOCTTY, so it becomes the controlling terminal; with 0
            // closed first it lands at 0.
            chain.call("close", 0);
            chain.call("open", chain.string(ptySlave), FileDescriptors.O_RDWR, 0);
            chain.call("dup2", 0, 1);
            chain.call("dup2", 0, 2);
        } else {
            SpawnRequest.Stdio stdio = request.stdio();
            int[] from = {stdio.in(), stdio.out(), stdio.err()};
            for (int fd = 0; fd < 3; fd++) {
                if (from[fd] >= 0) {
                    chain.call("dup2", from[fd], fd);
                }
            }
        }
        for (int fd = 3; fd < low; fd++) {
            sys("fcntl", fd, FileDescriptors.F_SETFD, 0);
        }
        boolean pathGate = gates.opathFd() < 0;
        int gateFd = pathGate ? gateFd(request.preserveFds(), notify) : low;
        // create's gate pipe right above the exec gate's O_PATH descriptor, kept by the close_range
        int createGate = gates.createGate() >= 0 ? gateFd + 1 : -1;
        // a shared mount namespace's descriptor right above create's gate pipe, kept too
        int sharedMountNs = createGate >= 0 && gates.sharedMountNs() >= 0 ? createGate + 1 : -1;
        if (createGate >= 0) {
            chain.call("dup2", gates.createGate(), createGate);
            if (sharedMountNs >= 0) {
                chain.call("dup2", gates.sharedMountNs(), sharedMountNs);
            }
            sys("close_range", low, createGate - 1, 0);
            sys("close_range", Math.max(createGate, sharedMountNs) + 1, 0xffffffffL, 0);
        } else if (!pathGate) {
            chain.call("dup2", gates.opathFd(), low);
            sys("close_range", low + 1, 0xffffffffL, 0);
        } else {
            sys("close_range", low, 0xffffffffL, 0);
        }
        long program = 0;
        if (filter != null) {
            // struct sock_fprog: the instruction count, then (after padding) the instructions' address
            ByteBuffer fprog = ByteBuffer.allocate(16).order(ByteOrder.nativeOrder());
            fprog.putShort(0, (short) filter.program().size());
            fprog.putLong(8, chain.bytes(programBytes));
            program = chain.bytes(fprog.array());
        }
        // Leaving the building mount namespace takes calls a profile may deny (open_tree, setns, chroot):
        // the filter is loaded after them, still before the credentials.
        if (!nnp && filter != null && sharedMountNs < 0) {
            load(filter, program);
        }
        if (pathGate) {
            int opath = FileDescriptors.O_PATH | FileDescriptors.O_CLOEXEC;
            if (notify && (nnp || sharedMountNs >= 0)) {
                // the listener, which comes at the lowest free descriptor, is made later: keep its place
                open(gates.path(), opath);
                chain.call("dup3", low, gateFd, FileDescriptors.O_CLOEXEC);
                chain.call("close", low);
            } else {
                open(gates.path(), opath);
            }
        }
        long errno = chain.errnoLocation();
        if (createGate >= 0) {
            chain.call("memset", report.address(ChildReport.AT_CREATE_GATE), 1, 4);
            chain.call("read", createGate, chain.zeroed(8), 1);
            record(loaded, "read", createGate, 0, 1);
            chain.call("close", createGate);
            record(loaded, "close", createGate);
        }
        if (sharedMountNs >= 0) {
            SharedMountNamespace.leave(this, sharedMountNs);
            if (!nnp && filter != null) {
                load(filter, program);
            }
        }
        // runc's order: the working directory with the runtime's identity, which may enter what the
        // process's may not, and again after the credentials when that was refused
        long cwd = chain.string(request.cwd());
        chdir(cwd, errno, report.address(ChildReport.CHDIR_BEFORE_CREDENTIALS));
        // joining a user namespace gives the full bounding set (set_cred_user_ns)
        credentialSteps(credentials, userNamespace >= 0 ? ChildStatus.fullSet() : runtime.bounding());
        chdir(cwd, errno, report.address(ChildReport.CHDIR_AFTER_CREDENTIALS));
        if (nnp) {
            sys("prctl", Prctl.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
        }
        if (nnp && filter != null) {
            load(filter, program);
        }
        chain.unblockSignals();
        // setcontext sets the signal mask before every later step.
        record(loaded, "rt_sigprocmask", 2, 0, 0, 8);
        int writeEnd = FileDescriptors.O_WRONLY | FileDescriptors.O_CLOEXEC;
        int reportFd;
        if (pathGate) {
            open(gates.path(), writeEnd);
            reportFd = gateFd + 1;
        } else {
            open("/proc/self/fd/" + low, writeEnd);
            reportFd = low + 1 + (notify ? 1 : 0);
        }
        chain.call("close", gateFd);
        record(loaded, "close", gateFd);
        chain.call("execve", chain.string(request.path()), chain.strings(request.args()), chain.strings(request.env()));
        record(loaded, "execve", 0, 0, 0);
        // Only if execve returned: why, and what, to whoever opened the gate. Not recorded for the
        // filter check: a profile that denied these would lose the report, not the container.
        byte[] path = request.path().getBytes(StandardCharsets.UTF_8);
        chain.call("write", reportFd, errno, 4);
        chain.call("write", reportFd, chain.bytes(path), path.length);
        record(loaded, "exit_group", 127);
    }

    /** errno zeroed, chdir, errno copied to {@code word}: the word is 0 exactly when the chdir worked. */
    private void chdir(long cwd, long errno, long word) {
        chain.call("memset", errno, 0, 4);
        chain.call("chdir", cwd);
        record(loaded, "chdir", 0);
        chain.call("memcpy", word, errno, 4);
    }

    private void load(CompiledFilter filter, long program) {
        int flags = filter.flags() & ~CompiledFilter.FLAG_TSYNC;
        sys("seccomp", SECCOMP_SET_MODE_FILTER, flags, program);
        loaded = true;
    }

    /** @param inherited the bounding set the child starts with (the runtime's: the thread drops nothing) */
    private void credentialSteps(ProcessCredentials credentials, long inherited) {
        ProcessCredentials.Sets sets = credentials.sets();
        int last = Capabilities.lastCap();
        for (int cap = 0; cap <= last; cap++) {
            if ((sets.bounding() & (1L << cap)) == 0 && (inherited & (1L << cap)) != 0) {
                sys("prctl", Prctl.PR_CAPBSET_DROP, cap, 0, 0, 0);
            }
        }
        sys("prctl", Prctl.PR_SET_KEEPCAPS, 1, 0, 0, 0);
        int[] groups = credentials.additionalGids();
        ByteBuffer list = ByteBuffer.allocate(Math.max(4, groups.length * 4)).order(ByteOrder.nativeOrder());
        for (int g : groups) {
            list.putInt(g);
        }
        sys("setgroups", groups.length, chain.bytes(list.array()));
        sys("setresgid", credentials.gid(), credentials.gid(), credentials.gid());
        sys("setresuid", credentials.uid(), credentials.uid(), credentials.uid());
        byte[][] capset = Capabilities.capsetArguments(
                new Capabilities.Sets(sets.effective(), sets.permitted(), sets.inheritable()));
        sys("capset", chain.bytes(capset[0]), chain.bytes(capset[1]));
        sys("prctl", Prctl.PR_CAP_AMBIENT, Prctl.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
        for (int cap = 0; cap <= last; cap++) {
            if ((sets.ambient() & (1L << cap)) != 0) {
                sys("prctl", Prctl.PR_CAP_AMBIENT, Prctl.PR_CAP_AMBIENT_RAISE, cap, 0, 0);
            }
        }
        sys("prctl", Prctl.PR_SET_KEEPCAPS, 0, 0, 0, 0);
    }

    /** glibc's open(2) is openat(AT_FDCWD, ...). */
    private void open(String path, int flags) {
        chain.call("open", chain.string(path), flags, 0);
        record(loaded, "openat", FileDescriptors.AT_FDCWD, 0, flags, 0);
    }

    /** Adds a libc call (steps of other classes of this package that build part of the chain). */
    void libc(String symbol, long... args) {
        chain.call(symbol, args);
    }

    /** A C string that lives as long as the chain. */
    long string(String s) {
        return chain.string(s);
    }

    void sys(String name, long... args) {
        int nr = table.number(name);
        if (nr == SyscallTable.ABSENT) {
            throw new IllegalStateException("no " + name + " syscall on " + table.arch().specName());
        }
        chain.syscall(nr, args);
        record(loaded, name, args);
    }

    private void record(boolean afterTheLoad, String name, long... args) {
        if (afterTheLoad) {
            afterLoad.add(new Call(name, args));
        }
    }
}
