package io.jrunc.bindings;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.util.ArrayList;
import java.util.List;

/**
 * A chain of libc calls run by a child process that executes no Java (process-model.md section 3).
 * Each step is a ucontext made with getcontext + makecontext whose uc_link names the next step; the
 * child is created with clone(setcontext, stack, flags, firstContext) and ends with _exit(0), never
 * exit() (its memory is the JVM's). The return values of the steps are not seen: whoever uses a chain
 * verifies its effect from outside afterwards.
 *
 * <p>Used where something must be done by a task inside a namespace no JVM thread can enter, e.g.
 * mounting procfs for a container's pid namespace on kernels whose procfs has no "pidns" parameter.
 * x86-64 glibc layout: ucontext_t is 968 bytes with uc_link at 8 and uc_stack {ss_sp, ss_flags,
 * ss_size} at 16 (checked against jextract's ucontext_t by a test). Instances are confined to the
 * thread that builds and runs them.
 */
public final class LibcChain implements AutoCloseable {
    static final long UCONTEXT_SIZE = 968, UC_LINK = 8, UC_STACK_SP = 16, UC_STACK_SIZE = 32, UC_SIGMASK = 296;
    /** glibc's sigset_t: 1024 bits, of which setcontext hands the kernel the first 64. */
    static final long SIGSET_SIZE = 128;
    private static final long STACK_SIZE = 32 * 1024;
    public static final int CLONE_VM = 0x100, CLONE_VFORK = 0x4000, SIGCHLD = 17;

    private static final class Handles {
        static final MethodHandle GETCONTEXT = Downcall.LINKER.downcallHandle(Downcall.address("getcontext"),
                FunctionDescriptor.of(JAVA_INT, ADDRESS));
        // makecontext(ucp, func, argc, ...): glibc takes each variadic argument as a 64-bit value.
        static final MethodHandle MAKECONTEXT = Downcall.LINKER.downcallHandle(Downcall.address("makecontext"),
                FunctionDescriptor.ofVoid(ADDRESS, ADDRESS, JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG,
                        JAVA_LONG, JAVA_LONG),
                Linker.Option.firstVariadicArg(3));
        static final MethodHandle CLONE = Downcall.linkShared("clone",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT, ADDRESS),
                Linker.Option.firstVariadicArg(4));
    }

    private record Step(MemorySegment function, long[] args, boolean unblocked) {}

    private final Arena arena = Arena.ofConfined();
    private final List<Step> steps = new ArrayList<>();
    private boolean unblocked;

    /** Adds a call of {@code symbol} with up to six integer or pointer arguments. */
    public LibcChain call(String symbol, long... args) {
        if (args.length > 6) {
            throw new IllegalArgumentException(symbol + ": more than 6 arguments");
        }
        steps.add(new Step(Downcall.address(symbol), args, unblocked));
        return this;
    }

    /** Adds a raw system call, {@code syscall(nr, args...)}: at most five arguments. */
    public LibcChain syscall(long nr, long... args) {
        long[] all = new long[args.length + 1];
        all[0] = nr;
        System.arraycopy(args, 0, all, 1, args.length);
        return call("syscall", all);
    }

    /**
     * The steps added from now on run with no signal blocked. setcontext installs each context's
     * signal mask, which getcontext took from the calling thread; until this call the child keeps the
     * JVM thread's mask, under which the JVM's asynchronous signals are blocked, so that no JVM handler
     * can run in the child before the chain has reset the dispositions.
     */
    public LibcChain unblockSignals() {
        unblocked = true;
        return this;
    }

    /** A C string that lives as long as the chain, for use as an argument. */
    public long string(String s) {
        return arena.allocateFrom(s).address();
    }

    /** A NULL-terminated array of C strings (an argv or envp). */
    public long strings(List<String> values) {
        MemorySegment array = arena.allocate(ADDRESS, values.size() + 1);
        for (int i = 0; i < values.size(); i++) {
            array.setAtIndex(ADDRESS, i, arena.allocateFrom(values.get(i)));
        }
        array.setAtIndex(ADDRESS, values.size(), MemorySegment.NULL);
        return array.address();
    }

    /** A copy of {@code bytes}, 8-byte aligned. */
    public long bytes(byte[] bytes) {
        MemorySegment copy = arena.allocate(Math.max(1, bytes.length), 8);
        MemorySegment.copy(bytes, 0, copy, java.lang.foreign.ValueLayout.JAVA_BYTE, 0, bytes.length);
        return copy.address();
    }

    /** {@code size} zeroed bytes, 8-byte aligned. */
    public long zeroed(long size) {
        return arena.allocate(size, 8).address();
    }

    /**
     * Runs the chain in a child created with {@code clone(flags | SIGCHLD)}, then _exit(0), and returns
     * the child's pid for the caller to wait on. With CLONE_VFORK the calling thread resumes only once
     * the child has exited.
     */
    public int run(int flags) {
        return run(flags, 0);
    }

    /**
     * As {@link #run(int)}, ending with {@code _exit(exitStatus)}: a chain that ends in execve exits
     * 127 if the execve fails, as a shell does.
     */
    public int run(int flags, int exitStatus) {
        List<Step> all = new ArrayList<>(steps);
        all.add(new Step(Downcall.address("_exit"), new long[] {exitStatus}, unblocked));
        MemorySegment[] contexts = new MemorySegment[all.size()];
        try {
            // One getcontext gives the register and FPU state every step starts from; the copies keep
            // pointing at its FPU save area, which setcontext only reads.
            MemorySegment template = arena.allocate(UCONTEXT_SIZE, 16);
            int r = (int) Handles.GETCONTEXT.invokeExact(template);
            if (r != 0) {
                throw new IllegalStateException("getcontext failed");
            }
            MemorySegment stacks = arena.allocate(STACK_SIZE * contexts.length, 16);
            for (int i = 0; i < contexts.length; i++) {
                contexts[i] = arena.allocate(UCONTEXT_SIZE, 16);
                MemorySegment.copy(template, 0, contexts[i], 0, UCONTEXT_SIZE);
                if (all.get(i).unblocked()) {
                    contexts[i].asSlice(UC_SIGMASK, SIGSET_SIZE).fill((byte) 0);
                }
            }
            for (int i = 0; i < contexts.length; i++) {
                MemorySegment ctx = contexts[i];
                MemorySegment stack = stacks.asSlice(STACK_SIZE * i, STACK_SIZE);
                ctx.set(ADDRESS, UC_STACK_SP, stack);
                ctx.set(JAVA_LONG, UC_STACK_SIZE, STACK_SIZE);
                ctx.set(ADDRESS, UC_LINK, i + 1 < contexts.length ? contexts[i + 1] : MemorySegment.NULL);
                long[] a = new long[6];
                System.arraycopy(all.get(i).args(), 0, a, 0, all.get(i).args().length);
                Handles.MAKECONTEXT.invokeExact(ctx, all.get(i).function(), all.get(i).args().length,
                        a[0], a[1], a[2], a[3], a[4], a[5]);
            }
            MemorySegment cloneStack = arena.allocate(STACK_SIZE, 16);
            MemorySegment top = cloneStack.asSlice(STACK_SIZE - 64);
            MemorySegment state = Downcall.errnoSegment(arena);
            int pid = (int) Handles.CLONE.invokeExact(state, Downcall.address("setcontext"), top, flags | SIGCHLD,
                    contexts[0]);
            if (pid == -1) {
                throw new ErrnoException("clone", Downcall.errno(state), null);
            }
            return pid;
        } catch (ErrnoException | IllegalStateException e) {
            throw e;
        } catch (Throwable t) {
            throw new AssertionError("libc chain", t);
        }
    }

    @Override
    public void close() {
        arena.close();
    }
}
