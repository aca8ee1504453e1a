package io.jrunc.runtime.init;

import io.jrunc.bindings.ErrnoException;
import io.jrunc.bindings.FileDescriptors;
import io.jrunc.bindings.LibcChain;
import io.jrunc.bindings.MountApi;
import io.jrunc.bindings.Processes;
import io.jrunc.bindings.SyscallNumbers;
import io.jrunc.bindings.UnixSockets;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * procfs contexts for a container's pid namespace on kernels whose procfs has no "pidns" parameter
 * (before Linux 6.18). procfs takes its pid namespace from the task that opens its context
 * (fsopen), and only that: setting its parameters, making the superblock (FSCONFIG_CMD_CREATE) and
 * the mount (fsmount) can be done by anyone who holds the context and may mount. So a libc-only child
 * (LibcChain; no Java runs in it) created by a thread that joined the container's pid namespace for
 * its children, and otherwise in the runtime's namespaces, opens the context and hands it back; the
 * runtime goes on with it exactly as with a context made with "pidns".
 *
 * <p>The child is cloned without CLONE_FILES, so its descriptor table is its own copy: it closes its
 * descriptor 0, which makes fsopen's descriptor 0 (the lowest free one), and sends it with sendmsg
 * over a socket pair whose message (SCM_RIGHTS naming descriptor 0) was laid out before the clone.
 * Its errno after fsopen is copied to memory the runtime reads, for the error when nothing arrives.
 */
final class ProcContexts {
    private ProcContexts() {}

    /**
     * A procfs context opened by a child of the calling thread, in the thread's pid namespace for
     * children; the caller configures it ({@link MountApi#configure(int, String, java.util.Map)}).
     */
    static int open() {
        int[] pair = UnixSockets.pair(UnixSockets.SOCK_SEQPACKET);
        Arena arena = Arena.ofConfined();
        try (LibcChain chain = new LibcChain(arena)) {
            MemorySegment message = UnixSockets.messageWithFd(arena, new byte[] {1}, 0);
            MemorySegment fsopenErrno = arena.allocate(ValueLayout.JAVA_INT);
            long errno = chain.errnoLocation();
            chain.call("close", 0);
            chain.call("memset", errno, 0, 4);
            chain.syscall(SyscallNumbers.FSOPEN, chain.string("proc"), MountApi.FSOPEN_CLOEXEC);
            chain.call("memcpy", fsopenErrno.address(), errno, 4);
            chain.call("sendmsg", pair[1], message.address(), 0);
            int child = chain.run(LibcChain.CLONE_VM | LibcChain.CLONE_VFORK);
            ChildWaits.waitpid(child, Processes.__WALL);
            try {
                // the child has exited: what it sent is queued, or nothing is
                int fd = UnixSockets.receiveWithFd(pair[0], 1, 0).fd();
                if (fd >= 0) {
                    return fd;
                }
            } catch (ErrnoException e) {
                // nothing was sent: fsopen failed, as its errno says
            }
            int failed = fsopenErrno.get(ValueLayout.JAVA_INT, 0);
            if (failed != 0) {
                throw new ErrnoException("fsopen", failed, "proc in the container's pid namespace");
            }
            throw new IllegalStateException("the child that opens procfs in the container's pid namespace sent no descriptor");
        } finally {
            FileDescriptors.closeQuietly(pair[0]);
            FileDescriptors.closeQuietly(pair[1]);
        }
    }
}
