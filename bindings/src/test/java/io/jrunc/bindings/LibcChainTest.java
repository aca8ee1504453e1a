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
        Throwable[] failure = new Throwable[1];
        Thread t = Thread.ofPlatform().unstarted(() -> {
            try {
                FsContext.unshare();
                Namespaces.unshare(Namespaces.CLONE_NEWNS);
                Mounts.mount(null, "/", null, Mounts.MS_REC | Mounts.MS_PRIVATE, null);
                try (LibcChain chain = new LibcChain()) {
                    chain.call("mount", chain.string("tmpfs"), chain.string(dir.toString()), chain.string("tmpfs"), 0, 0);
                    int pid = chain.run(LibcChain.CLONE_VM | LibcChain.CLONE_VFORK);
                    status[0] = Processes.waitpid(pid, Processes.__WALL).raw();
                }
                seenByThread[0] = Files.readString(Path.of("/proc/thread-self/mountinfo"));
            } catch (Throwable e) {
                failure[0] = e;
            }
        });
        t.start();
        t.join();
        if (failure[0] != null) {
            throw new AssertionError(failure[0]);
        }
        assertEquals(0, status[0], "the chain's child exits with _exit(0)");
        assertTrue(seenByThread[0].contains(" " + dir + " "), "mounted in the thread's namespace");
        assertFalse(Files.readString(Path.of("/proc/self/mountinfo")).contains(" " + dir + " "),
                "not in the JVM's namespace");
        Files.delete(dir);
    }
}
