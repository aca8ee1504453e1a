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
    static final long UCONTEXT_SIZE = 968, UC_LINK = 8, UC_STACK_SP = 16, UC_STACK_SIZE = 32;
    private static final long STACK_SIZE = 64 * 1024;
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

    private record Step(MemorySegment function, long[] args) {}

    private final Arena arena = Arena.ofConfined();
    private final List<Step> steps = new ArrayList<>();

    /** Adds a call of {@code symbol} with up to six integer or pointer arguments. */
    public LibcChain call(String symbol, long... args) {
        if (args.length > 6) {
            throw new IllegalArgumentException(symbol + ": more than 6 arguments");
        }
        steps.add(new Step(Downcall.address(symbol), args));
        return this;
    }

    /** A C string that lives as long as the chain, for use as an argument. */
    public long string(String s) {
        return arena.allocateFrom(s).address();
    }

    /**
     * Runs the chain in a child created with {@code clone(flags | SIGCHLD)}, then _exit(0), and returns
     * the child's pid for the caller to wait on. With CLONE_VFORK the calling thread resumes only once
     * the child has exited.
     */
    public int run(int flags) {
        List<Step> all = new ArrayList<>(steps);
        all.add(new Step(Downcall.address("_exit"), new long[] {0}));
        MemorySegment[] contexts = new MemorySegment[all.size()];
        try {
            for (int i = 0; i < contexts.length; i++) {
                contexts[i] = arena.allocate(UCONTEXT_SIZE, 16);
                int r = (int) Handles.GETCONTEXT.invokeExact(contexts[i]);
                if (r != 0) {
                    throw new IllegalStateException("getcontext failed");
                }
            }
            for (int i = 0; i < contexts.length; i++) {
                MemorySegment ctx = contexts[i];
                MemorySegment stack = arena.allocate(STACK_SIZE, 16);
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
