package io.jrunc.bindings;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/**
 * A chain of libc calls run by a child process that executes no Java (docs/runtime.md, "create, stage by stage").
 * Each step is a ucontext made with getcontext + makecontext whose uc_link names the next step; the
 * child is created with clone(setcontext, stack, flags, firstContext) and ends with _exit(0), never
 * exit() (its memory is the JVM's). The return values of the steps are not seen: whoever uses a chain
 * verifies its effect from outside afterwards, or has the steps report through memory the JVM reads
 * ({@link #errnoLocation}, {@link SharedWords}).
 *
 * <p>Used for the container's process (the runtime's ChainSpawn) and where something must be done by a
 * task inside a namespace no JVM thread can enter, e.g. opening a procfs context for a container's
 * pid namespace on kernels whose procfs has no "pidns" parameter.
 * x86-64 glibc layout: ucontext_t is 968 bytes with uc_link at 8 and uc_stack {ss_sp, ss_flags,
 * ss_size} at 16 (checked against jextract's ucontext_t by a test). Instances are confined to the
 * thread that builds and runs them.
 */
public final class LibcChain implements AutoCloseable {
    static final long UCONTEXT_SIZE = 968, UC_LINK = 8, UC_STACK_SP = 16, UC_STACK_SIZE = 32, UC_SIGMASK = 296;
    /** glibc's sigset_t: 1024 bits, of which setcontext hands the kernel the first 64. */
    static final long SIGSET_SIZE = 128;
    // A step is one libc function that makes a system call or two; glibc's own calls are direct, not
    // through the lazy-binding trampoline, which needs more.
    private static final long STACK_SIZE = 16 * 1024;
    /** How much higher each step's stack starts than the previous one's ({@link #makecontext}). */
    private static final long TOP_STRIDE = 16;
    /** Above the steps' stack, for clone's child until its first setcontext. */
    private static final long CLONE_STACK_SIZE = 1024;
    /** Contexts lie 16-byte aligned one after the other, in words of 8 bytes. */
    static final long CONTEXT_STRIDE = (UCONTEXT_SIZE + 15) & -16L;
    static final int CONTEXT_WORDS = (int) (CONTEXT_STRIDE / 8);
    public static final int CLONE_VM = 0x100, CLONE_VFORK = 0x4000, SIGCHLD = 17;

    /** uc_mcontext.gregs (x86-64): the register slots makecontext fills, by their REG_* index. */
    static final long UC_GREGS = 40;
    static final int REG_R8 = 0, REG_R9 = 1, REG_RDI = 8, REG_RSI = 9, REG_RBX = 11, REG_RDX = 12, REG_RCX = 14,
            REG_RSP = 15, REG_RIP = 16;

    // Through the shared shape (NativeFunction): a distinct descriptor would cost a generated stub, tens
    // of milliseconds on a cold JVM. clone is glibc assembly that reads only registers; makecontext is
    // called with no variadic argument, so it reads none.
    private static final class Handles {
        static final NativeFunction GETCONTEXT = Downcall.function("getcontext", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        static final NativeFunction MAKECONTEXT = Downcall.function("makecontext",
                FunctionDescriptor.ofVoid(ADDRESS, ADDRESS, JAVA_INT));
        static final NativeFunction CLONE = Downcall.function("clone",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT, ADDRESS));
        static final NativeFunction ERRNO_LOCATION = Downcall.function("__errno_location", FunctionDescriptor.of(ADDRESS));
    }

    private record Step(MemorySegment function, long[] args, boolean unblocked) {}

    private final Arena arena;
    private final List<Step> steps = new ArrayList<>();
    // a chain calls a handful of functions many times (syscall above all): one symbol lookup each
    private final java.util.Map<String, MemorySegment> addresses = new java.util.HashMap<>();
    private boolean unblocked;

    /** A chain whose memory is freed by {@link #close}, on the thread that built it. */
    public LibcChain() {
        this(Arena.ofConfined());
    }

    /**
     * A chain whose memory (steps, stacks, arguments) is {@code arena}'s: for a CLONE_VM child that
     * outlives the building thread's use of it, with an arena that lives until the child is reaped
     * (an automatic one, kept reachable until then). {@link #close} closes the arena.
     */
    public LibcChain(Arena arena) {
        this.arena = arena;
    }

    /** Adds a call of {@code symbol} with up to six integer or pointer arguments. */
    public LibcChain call(String symbol, long... args) {
        if (args.length > 6) {
            throw new IllegalArgumentException(symbol + ": more than 6 arguments");
        }
        steps.add(new Step(addresses.computeIfAbsent(symbol, Downcall::address), args, unblocked));
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

    /**
     * The address of the calling thread's errno, which is also the child's: the child runs in this
     * thread's memory with this thread's thread pointer (clone without CLONE_SETTLS), so its libc calls
     * set this same word. A step that follows a call can pass it on (memcpy it into {@link SharedWords},
     * write(2) it to a descriptor); a step that zeroes it first (memset) makes the copy that call's own.
     * Asked on the thread that runs the chain.
     */
    public long errnoLocation() {
        return Calls.value(Handles.ERRNO_LOCATION);
    }

    /** A C string that lives as long as the chain, for use as an argument. */
    public long string(String s) {
        return arena.allocateFrom(s).address();
    }

    /** A NULL-terminated array of C strings (an argv or envp). */
    public long strings(List<String> values) {
        return CStrings.array(arena, values).address();
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
        int n = all.size();
        MemorySegment state = Downcall.errnoSegment(arena);
        // One getcontext gives the register and FPU state every step starts from; the copies keep
        // pointing at its FPU save area, which setcontext only reads.
        MemorySegment template = arena.allocate(UCONTEXT_SIZE, 16);
        if ((int) Handles.GETCONTEXT.invoke(state, template.address(), 0, 0, 0, 0, 0, 0) != 0) {
            throw new IllegalStateException("getcontext failed");
        }
        long startContext = startContext(template, state);
        // The contexts are assembled in a Java array and copied out at once: on a cold JVM every
        // MemorySegment access runs tens of interpreted frames, and a chain has dozens of contexts.
        long[] templateWords = template.toArray(JAVA_LONG);
        long[] contextWords = new long[CONTEXT_WORDS * n];
        long[] topWords = new long[2 * n];
        MemorySegment contexts = arena.allocate(CONTEXT_STRIDE * n, 16);
        MemorySegment stack = arena.allocate(STACK_SIZE + TOP_STRIDE * n + CLONE_STACK_SIZE, 16);
        long firstTop = stack.address() + STACK_SIZE;
        for (int i = 0; i < n; i++) {
            int base = CONTEXT_WORDS * i;
            System.arraycopy(templateWords, 0, contextWords, base, templateWords.length);
            if (all.get(i).unblocked()) {
                java.util.Arrays.fill(contextWords, base + (int) (UC_SIGMASK / 8),
                        base + (int) ((UC_SIGMASK + SIGSET_SIZE) / 8), 0L);
            }
            long link = i + 1 < n ? contexts.address() + CONTEXT_STRIDE * (i + 1) : 0;
            makecontext(contextWords, base, stack.address(), firstTop + TOP_STRIDE * i, link,
                    all.get(i).function().address(), all.get(i).args());
            topWords[2 * i] = startContext;
            topWords[2 * i + 1] = link;
        }
        MemorySegment.copy(contextWords, 0, contexts, JAVA_LONG, 0, contextWords.length);
        // step 0's return address sits at its top less 24 (see makecontext), and each next pair 16 higher
        MemorySegment.copy(topWords, 0, stack, JAVA_LONG, STACK_SIZE - 24, topWords.length);
        long cloneTop = stack.address() + stack.byteSize() - 64;
        int pid = (int) Handles.CLONE.invoke(state, Downcall.address("setcontext").address(), cloneTop,
                flags | SIGCHLD, contexts.address(), 0, 0, 0);
        if (pid == -1) {
            throw new ErrnoException("clone", Downcall.errno(state), null);
        }
        return pid;
    }

    /**
     * What glibc's x86-64 makecontext does for at most six arguments (sysdeps/unix/sysv/linux/x86_64/
     * makecontext.c), done here instead of one variadic downcall per step: the function in RIP, its
     * arguments in RDI, RSI, RDX, RCX, R8, R9 (all six set, so no register keeps the template's value),
     * and at the 16-byte-aligned top of the stack, less 8, the return address __start_context with
     * uc_link above it, which RBX points at (the caller writes those two words: with {@code top}
     * 16-byte aligned they are at {@code top - 24} and {@code top - 16}). __start_context is not
     * exported, so {@link #startContext} asks the real makecontext once per chain and checks it lays a
     * context out exactly so.
     *
     * <p>The steps share one stack, each starting {@link #TOP_STRIDE} bytes above the previous one: a
     * step writes only below its own return address (no step takes arguments on the stack), so the
     * words of the steps after it are intact when they run, and every step still has at least
     * {@link #STACK_SIZE} bytes. One stack instead of one per step matters because the memory is
     * zeroed on allocation, and on a virtual machine each page touched for the first time costs tens
     * of microseconds: a stack per step made podman's profile (67 steps) cost 4-9 ms here.
     */
    private static void makecontext(long[] words, int base, long stack, long top, long link, long function,
            long[] args) {
        words[base + (int) (UC_STACK_SP / 8)] = stack;
        words[base + (int) (UC_STACK_SIZE / 8)] = top - stack;
        words[base + (int) (UC_LINK / 8)] = link;
        long sp = ((top - 8) & -16L) - 8;
        int gregs = base + (int) (UC_GREGS / 8);
        words[gregs + REG_RIP] = function;
        words[gregs + REG_RSP] = sp;
        words[gregs + REG_RBX] = sp + 8;
        int[] registers = {REG_RDI, REG_RSI, REG_RDX, REG_RCX, REG_R8, REG_R9};
        for (int i = 0; i < registers.length; i++) {
            words[gregs + registers[i]] = i < args.length ? args[i] : 0;
        }
    }

    /** Runs glibc's makecontext on a copy of {@code template} and reads __start_context's address off its stack. */
    private long startContext(MemorySegment template, MemorySegment state) {
        MemorySegment probe = arena.allocate(UCONTEXT_SIZE, 16);
        MemorySegment.copy(template, 0, probe, 0, UCONTEXT_SIZE);
        MemorySegment stack = arena.allocate(256, 16);
        probe.set(JAVA_LONG, UC_STACK_SP, stack.address());
        probe.set(JAVA_LONG, UC_STACK_SIZE, stack.byteSize());
        probe.set(JAVA_LONG, UC_LINK, probe.address());
        long function = Downcall.address("_exit").address();
        Handles.MAKECONTEXT.invoke(state, probe.address(), function, 0, 0, 0, 0, 0);
        long sp = ((stack.address() + stack.byteSize() - 8) & -16L) - 8;
        if (probe.get(JAVA_LONG, UC_GREGS + 8L * REG_RIP) != function || probe.get(JAVA_LONG, UC_GREGS + 8L * REG_RSP) != sp
                || probe.get(JAVA_LONG, UC_GREGS + 8L * REG_RBX) != sp + 8
                || stack.get(JAVA_LONG, sp + 8 - stack.address()) != probe.address()) {
            throw new IllegalStateException("glibc's makecontext does not lay out a context as LibcChain expects");
        }
        return stack.get(JAVA_LONG, sp - stack.address());
    }

    @Override
    public void close() {
        arena.close();
    }
}
