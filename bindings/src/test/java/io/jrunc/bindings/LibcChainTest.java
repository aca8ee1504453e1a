package io.jrunc.bindings;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrunc.bindings.c.stack_t;
import io.jrunc.bindings.c.ucontext_t;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The clone/setcontext chain on the real kernel: the child's libc calls take effect, no Java runs there. */
class LibcChainTest {

    @Test
    void layoutMatchesTheGeneratedUcontext() {
        assertEquals(ucontext_t.sizeof(), LibcChain.UCONTEXT_SIZE);
        assertEquals(ucontext_t.uc_link$offset(), LibcChain.UC_LINK);
        assertEquals(ucontext_t.uc_stack$offset() + stack_t.ss_sp$offset(), LibcChain.UC_STACK_SP);
        assertEquals(ucontext_t.uc_stack$offset() + stack_t.ss_size$offset(), LibcChain.UC_STACK_SIZE);
        assertEquals(ucontext_t.uc_sigmask$offset(), LibcChain.UC_SIGMASK);
        assertEquals(ucontext_t.uc_mcontext$offset() + io.jrunc.bindings.c.mcontext_t.gregs$offset(), LibcChain.UC_GREGS);
        assertEquals(ucontext_t.uc_sigmask$layout().byteSize(), LibcChain.SIGSET_SIZE);
    }

    /** A chain mounts a tmpfs in the thread's private mount namespace, then exits 0. */
    @Test
    void chainMountsInTheThreadsNamespace() throws Exception {
        Path dir = Files.createTempDirectory("chain");
        String[] seenByThread = new String[1];
        int[] status = new int[1];
        onThread(() -> {
            FsContext.unshare();
            Namespaces.unshare(Namespaces.CLONE_NEWNS);
            Mounts.mount(null, "/", null, Mounts.MS_REC | Mounts.MS_PRIVATE, null);
            try (LibcChain chain = new LibcChain()) {
                chain.call("mount", chain.string("tmpfs"), chain.string(dir.toString()), chain.string("tmpfs"), 0, 0);
                int pid = chain.run(LibcChain.CLONE_VM | LibcChain.CLONE_VFORK);
                status[0] = Processes.waitpid(pid, Processes.__WALL).raw();
            }
            seenByThread[0] = Files.readString(Path.of("/proc/thread-self/mountinfo"));
        });
        assertEquals(0, status[0], "the chain's child exits with _exit(0)");
        assertTrue(seenByThread[0].contains(" " + dir + " "), "mounted in the thread's namespace");
        assertFalse(Files.readString(Path.of("/proc/self/mountinfo")).contains(" " + dir + " "),
                "not in the JVM's namespace");
        Files.delete(dir);
    }

    /**
     * The child's errno is the running thread's word: zeroed, a failing chdir sets it, memcpy hands it
     * to SharedWords, which this thread reads. The steps after an execve run only when it fails: they
     * write its errno to a pipe; a successful execve writes nothing there.
     */
    @Test
    void theChildReportsThroughItsErrnoAndSharedWords() throws Exception {
        int[] pipe = FileDescriptors.pipe(FileDescriptors.O_CLOEXEC);
        int[] statuses = new int[2];
        try (SharedWords words = new SharedWords(2)) {
            onThread(() -> {
                for (int round = 0; round < 2; round++) {
                    String program = round == 0 ? "/no/such/program" : "/bin/true";
                    try (LibcChain chain = new LibcChain()) {
                        long errno = chain.errnoLocation();
                        chain.call("memset", errno, 0, 4);
                        chain.call("chdir", chain.string("/no/such/directory"));
                        chain.call("memcpy", words.address(0), errno, 4);
                        chain.call("memset", words.address(1), 1, 4);
                        chain.call("execve", chain.string(program), chain.strings(java.util.List.of(program)),
                                chain.strings(java.util.List.of()));
                        chain.call("write", pipe[1], errno, 4);
                        int pid = chain.run(LibcChain.CLONE_VM | LibcChain.CLONE_VFORK, 127);
                        statuses[round] = Processes.waitpid(pid, Processes.__WALL).raw();
                    }
                }
            });
            assertEquals(Errno.ENOENT, words.get(0), "chdir's errno, copied by the child");
            assertEquals(0x01010101, words.get(1), "memset by the child");
        }
        assertEquals(127 << 8, statuses[0], "the failed execve ends in _exit(127)");
        assertEquals(0, statuses[1], "/bin/true ran");
        FileDescriptors.close(pipe[1]);
        byte[] buf = new byte[16];
        int n = FileDescriptors.read(pipe[0], buf, buf.length);
        FileDescriptors.close(pipe[0]);
        assertEquals(4, n, "one errno, from the failed execve only");
        assertEquals(Errno.ENOENT, java.nio.ByteBuffer.wrap(buf, 0, 4).order(java.nio.ByteOrder.nativeOrder()).getInt());
    }

    interface Body {
        void run() throws Exception;
    }

    /** Runs {@code body} on a platform thread of its own and rethrows what it threw. */
    private static void onThread(Body body) throws InterruptedException {
        Throwable[] failure = new Throwable[1];
        Thread t = Thread.ofPlatform().start(() -> {
            try {
                body.run();
            } catch (Throwable e) {
                failure[0] = e;
            }
        });
        t.join();
        if (failure[0] != null) {
            throw new AssertionError(failure[0]);
        }
    }
}
