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
import java.util.ArrayList;
import java.util.List;

/**
 * The container's process made by a chain of libc calls instead of posix_spawn, for a process with a
 * seccomp filter (docs/seccomp.md). The filter is loaded by the child itself, so no JVM thread is ever
 * filtered, and when the process does not set no_new_privs the load needs CAP_SYS_ADMIN: the child
 * then loads it before it drops its credentials, which it therefore drops itself too. The chain does
 * what posix_spawn's attributes and file actions did, in this order:
 *
 * <ol>
 *   <li>every signal the JVM catches or ignores back to its default (until then the JVM thread's mask
 *       is kept, which blocks the JVM's asynchronous signals, so no JVM handler can run in the child);
 *   <li>a new session; the pty slave (or the request's explicit streams) as stdin, stdout and stderr;
 *       the preserved descriptors kept;
 *       every other descriptor closed;
 *   <li>without no_new_privs: the filter;
 *   <li>the credentials in {@link ProcessCredentials}'s order, then the working directory;
 *   <li>with no_new_privs: no_new_privs and the filter;
 *   <li>signals unblocked; the exec gate (which blocks until start); the working directory again (see
 *       ProcessLauncher); execve; _exit(127).
 * </ol>
 *
 * <p>A chain does not check its steps. {@link ChildStatus} verifies from /proc, while the child waits at
 * the gate, that every step took effect, before create or exec reports success. The syscalls after the
 * filter is loaded are recorded ({@link #afterLoad()}) so that create can run the filter over exactly
 * those before it spawns ({@link PreExecCheck}).
 */
public final class ChainSpawn implements AutoCloseable {
    /** A syscall made after the filter is loaded, with the arguments it is made with. */
    public record Call(String name, long[] args) {}

    private static final int SECCOMP_SET_MODE_FILTER = 1;
    private static final long KERNEL_SIGACTION_SIZE = 32; // x86-64 and aarch64: handler, flags, restorer, mask

    private final LibcChain chain = new LibcChain();
    private final SyscallTable table = Arch.nativeArch().table();
    private final List<Call> afterLoad = new ArrayList<>();
    private boolean loaded;

    private ChainSpawn() {}

    /**
     * Builds the chain. {@code gate.opathFd() < 0}: the gate is a path in the container's root, to be
     * opened O_PATH at the lowest free descriptor, which must be {@code gatePathFd}.
     */
    public static ChainSpawn of(SpawnRequest request, ProcessLauncher.Gate gate, String ptySlave,
            ProcessCredentials credentials, FilterCompilation.Loadable filter, ChildStatus.Runtime runtime) {
        return of(request, gate, ptySlave, credentials, filter, runtime, -1, false);
    }

    /**
     * With {@code cgroupGate} >= 0 the child's first step reads one byte from that pipe: it waits there
     * until its creator has moved it into the container's cgroup ({@link ChildCgroupEntry}); with
     * {@code unshareCgroup} it then creates its cgroup namespace. {@code filter} may be null (no
     * seccomp: no load, nothing recorded).
     */
    public static ChainSpawn of(SpawnRequest request, ProcessLauncher.Gate gate, String ptySlave,
            ProcessCredentials credentials, FilterCompilation.Loadable filter, ChildStatus.Runtime runtime,
            int cgroupGate, boolean unshareCgroup) {
        ChainSpawn spawn = new ChainSpawn();
        spawn.build(request, gate, ptySlave, credentials, filter == null ? null : filter.filter(),
                filter == null ? null : filter.programBytes(), runtime, cgroupGate, unshareCgroup);
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

    private static final int CLONE_NEWCGROUP = 0x02000000;

    private void build(SpawnRequest request, ProcessLauncher.Gate gate, String ptySlave,
            ProcessCredentials credentials, CompiledFilter filter, byte[] programBytes, ChildStatus.Runtime runtime,
            int cgroupGate, boolean unshareCgroup) {
        if (cgroupGate >= 0) {
            // nothing of the container's runs before the creator has moved this child into its cgroup
            chain.call("read", cgroupGate, chain.zeroed(8), 1);
            chain.call("close", cgroupGate);
            if (unshareCgroup) {
                sys("unshare", CLONE_NEWCGROUP);
            }
        }
        long handled = runtime.handledSignals();
        int low = ProcessLauncher.gateFd(request.preserveFds());
        long dfl = chain.zeroed(KERNEL_SIGACTION_SIZE); // SIG_DFL, no flags, empty mask
        for (int sig = 1; sig <= 64; sig++) {
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
        if (gate.opathFd() >= 0) {
            chain.call("dup2", gate.opathFd(), low);
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
        boolean nnp = credentials.noNewPrivileges();
        if (!nnp && filter != null) {
            load(filter, program);
        }
        credentialSteps(credentials, runtime.bounding());
        chain.call("chdir", chain.string(request.cwd()));
        record(loaded, "chdir", 0);
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
        if (gate.opathFd() >= 0) {
            open("/proc/self/fd/" + low, writeEnd);
            chain.call("close", low);
            record(loaded, "close", low);
        } else {
            open(gate.path(), FileDescriptors.O_PATH | FileDescriptors.O_CLOEXEC);
            open(gate.path(), writeEnd);
            int gateFd = gateFd(request.preserveFds(), filter != null && filter.usesNotify());
            chain.call("close", gateFd);
            record(loaded, "close", gateFd);
        }
        // The working directory again past the gate: create makes the mounts listed after /proc again
        // while the child waits there (MountOrder), and the first chdir may have entered one of them.
        chain.call("chdir", chain.string(request.cwd()));
        record(loaded, "chdir", 0);
        chain.call("execve", chain.string(request.path()), chain.strings(request.args()), chain.strings(request.env()));
        record(loaded, "execve", 0, 0, 0);
        record(loaded, "exit_group", 127);
    }

    /**
     * Where the child holds the gate's O_PATH descriptor when the gate is a path: after the preserved
     * descriptors, and after the seccomp listener when the filter has one (it is the lowest free
     * descriptor when the filter is loaded).
     */
    public static int gateFd(int preserveFds, boolean usesNotify) {
        return ProcessLauncher.gateFd(preserveFds) + (usesNotify ? 1 : 0);
    }

    /** The descriptor the child holds the seccomp listener at (close-on-exec, as the kernel makes it). */
    public static int listenerFd(int preserveFds, boolean exec) {
        return ProcessLauncher.gateFd(preserveFds) + (exec ? 1 : 0);
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

    private void sys(String name, long... args) {
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
