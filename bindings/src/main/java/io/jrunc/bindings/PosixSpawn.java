package io.jrunc.bindings;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.util.List;

/**
 * posix_spawn(3) with file actions and attributes: the only way this project creates a process that
 * runs a program (no Java ever runs in a child). The child inherits the calling thread's namespaces,
 * root, cwd, umask and credentials, so the thread is prepared first and then spawns.
 *
 * <p>glibc runs the child's steps in this order: signal mask and defaults, setsid, process group,
 * then the file actions in the order they were added, then execve. posix_spawn returns only after the
 * child has exec'd or failed (CLONE_VFORK), so a file action that blocks (opening a FIFO for writing)
 * keeps the calling thread blocked too: callers learn the pid from /proc instead.
 *
 * <p>Instances are confined to the thread that builds them.
 */
public final class PosixSpawn implements AutoCloseable {
    // Sizes of the opaque glibc types on x86-64 and aarch64 (glibc 2.36): checked by a test.
    static final long FILE_ACTIONS_SIZE = 80, ATTR_SIZE = 336, SIGSET_SIZE = 128;
    public static final short POSIX_SPAWN_SETPGROUP = 0x02, POSIX_SPAWN_SETSIGDEF = 0x04,
            POSIX_SPAWN_SETSIGMASK = 0x08, POSIX_SPAWN_SETSID = 0x80;

    static final class Handles {
        static final NativeFunction SPAWN = Downcall.function("posix_spawn",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS, ADDRESS, ADDRESS, ADDRESS));
        static final NativeFunction FA_INIT = fn("posix_spawn_file_actions_init", ADDRESS);
        static final NativeFunction FA_DESTROY = fn("posix_spawn_file_actions_destroy", ADDRESS);
        static final NativeFunction FA_DUP2 = fn("posix_spawn_file_actions_adddup2", ADDRESS, JAVA_INT, JAVA_INT);
        static final NativeFunction FA_OPEN = fn("posix_spawn_file_actions_addopen",
                ADDRESS, JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT);
        static final NativeFunction FA_CLOSE = fn("posix_spawn_file_actions_addclose", ADDRESS, JAVA_INT);
        static final NativeFunction FA_CHDIR = fn("posix_spawn_file_actions_addchdir_np", ADDRESS, ADDRESS);
        static final NativeFunction FA_CLOSEFROM = fn("posix_spawn_file_actions_addclosefrom_np", ADDRESS, JAVA_INT);
        static final NativeFunction ATTR_INIT = fn("posix_spawnattr_init", ADDRESS);
        static final NativeFunction ATTR_DESTROY = fn("posix_spawnattr_destroy", ADDRESS);
        static final NativeFunction ATTR_FLAGS = fn("posix_spawnattr_setflags", ADDRESS, JAVA_SHORT);
        static final NativeFunction ATTR_SIGMASK = fn("posix_spawnattr_setsigmask", ADDRESS, ADDRESS);
        static final NativeFunction ATTR_SIGDEFAULT = fn("posix_spawnattr_setsigdefault", ADDRESS, ADDRESS);
        static final NativeFunction SIGEMPTYSET = fn("sigemptyset", ADDRESS);
        static final NativeFunction SIGFILLSET = fn("sigfillset", ADDRESS);

        private static NativeFunction fn(String name, java.lang.foreign.MemoryLayout... args) {
            return Downcall.function(name, FunctionDescriptor.of(JAVA_INT, args));
        }
    }

    private final Arena arena = Arena.ofConfined();
    private final MemorySegment actions = arena.allocate(FILE_ACTIONS_SIZE, 8);
    private final MemorySegment attr = arena.allocate(ATTR_SIZE, 8);
    private short flags;

    public PosixSpawn() {
        check("posix_spawn_file_actions_init", call(Handles.FA_INIT, actions));
        check("posix_spawnattr_init", call(Handles.ATTR_INIT, attr));
    }

    /** Clean signal state: nothing blocked, every signal at its default (the JVM blocks and ignores some). */
    public PosixSpawn cleanSignals() {
        MemorySegment empty = arena.allocate(SIGSET_SIZE, 8);
        MemorySegment all = arena.allocate(SIGSET_SIZE, 8);
        check("sigemptyset", call(Handles.SIGEMPTYSET, empty));
        check("sigfillset", call(Handles.SIGFILLSET, all));
        // glibc's sigfillset leaves out its internal signals (32, 33), and posix_spawn sets those to
        // SIG_IGN in the child unless they are in the sigdefault set; an ignored signal stays ignored
        // across execve, so the container would start with SigIgn bits set. Set every bit directly.
        all.fill((byte) 0xff);
        check("posix_spawnattr_setsigmask", call(Handles.ATTR_SIGMASK, attr, empty));
        check("posix_spawnattr_setsigdefault", call(Handles.ATTR_SIGDEFAULT, attr, all));
        flags |= POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF;
        return this;
    }

    /** The child starts a new session (and so can acquire a controlling terminal). */
    public PosixSpawn newSession() {
        flags |= POSIX_SPAWN_SETSID;
        return this;
    }

    /** dup2 in the child; when {@code from == to} glibc clears FD_CLOEXEC instead (keeps the fd open). */
    public PosixSpawn dup2(int from, int to) {
        check("posix_spawn_file_actions_adddup2", call(Handles.FA_DUP2, actions, from, to));
        return this;
    }

    public PosixSpawn open(int fd, String path, int oflag, int mode) {
        check("posix_spawn_file_actions_addopen",
                call(Handles.FA_OPEN, actions, fd, arena.allocateFrom(path), oflag, mode));
        return this;
    }

    public PosixSpawn close(int fd) {
        check("posix_spawn_file_actions_addclose", call(Handles.FA_CLOSE, actions, fd));
        return this;
    }

    public PosixSpawn chdir(String dir) {
        check("posix_spawn_file_actions_addchdir_np", call(Handles.FA_CHDIR, actions, arena.allocateFrom(dir)));
        return this;
    }

    /** Closes every descriptor from {@code lowFd} up: the JVM's own descriptors never reach a container. */
    public PosixSpawn closeFrom(int lowFd) {
        check("posix_spawn_file_actions_addclosefrom_np", call(Handles.FA_CLOSEFROM, actions, lowFd));
        return this;
    }

    /**
     * Spawns {@code path} (no PATH search) and returns the child's pid once it has exec'd. A failure of
     * the file actions or of execve is reported as an {@link ErrnoException} for {@code path}.
     */
    public int spawn(String path, List<String> argv, List<String> env) {
        check("posix_spawnattr_setflags", call(Handles.ATTR_FLAGS, attr, flags));
        MemorySegment pid = arena.allocate(JAVA_INT);
        int err = (int) Calls.value(Handles.SPAWN, pid, arena.allocateFrom(path), actions, attr,
                CStrings.array(arena, argv), CStrings.array(arena, env));
        if (err != 0) {
            throw new ErrnoException("posix_spawn", err, path);
        }
        return pid.get(JAVA_INT, 0);
    }

    @Override
    public void close() {
        call(Handles.FA_DESTROY, actions);
        call(Handles.ATTR_DESTROY, attr);
        arena.close();
    }

    private static int call(NativeFunction fn, Object... args) {
        return (int) Calls.value(fn, args);
    }

    // The posix_spawn family returns an error number instead of setting errno.
    private static void check(String what, int err) {
        if (err != 0) {
            throw new ErrnoException(what, err, null);
        }
    }
}
