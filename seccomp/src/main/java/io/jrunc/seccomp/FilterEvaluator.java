package io.jrunc.seccomp;

/**
 * Runs a seccomp BPF program over one {@link SeccompData}, as the kernel's classic BPF interpreter does
 * for seccomp (net/core/filter.c, seccomp_check_filter's subset: loads of seccomp_data words, ALU, jumps,
 * the scratch memory, returns). The runtime uses it at create to check that the syscalls it makes between
 * loading the filter and execve pass (docs/seccomp.md).
 *
 * <p>A program is checked the way the kernel checks it when it is loaded (bpf_check_classic, then
 * seccomp_check_filter): only the opcodes seccomp allows, jumps that land inside the program, a return as
 * the last instruction, scratch words below 16 that are stored before they are loaded on every path, no
 * division by a constant zero, no constant shift of 32 or more, and LD|W|ABS only of an aligned word of
 * {@code struct seccomp_data}. A program the kernel would refuse is refused here with
 * {@link IllegalArgumentException}, before anything runs.
 *
 * <p>Checking and decoding happen once per program: {@link #prepare} returns the decoded form, and
 * {@link #evaluate(Program, SeccompData)} keeps the last program it decoded, so evaluating the same program
 * again allocates nothing.
 */
public final class FilterEvaluator {
    private FilterEvaluator() {}

    // Classes, sizes, modes, operations and sources (linux/bpf_common.h, linux/filter.h).
    private static final int LD = 0x00, LDX = 0x01, ST = 0x02, STX = 0x03, ALU = 0x04, JMP = 0x05, RET = 0x06,
            MISC = 0x07;
    private static final int W = 0x00, IMM = 0x00, ABS = 0x20, MEM = 0x60, LEN = 0x80;
    private static final int ADD = 0x00, SUB = 0x10, MUL = 0x20, DIV = 0x30, OR = 0x40, AND = 0x50, LSH = 0x60,
            RSH = 0x70, NEG = 0x80, XOR = 0xa0;
    private static final int JA = 0x00, JEQ = 0x10, JGT = 0x20, JGE = 0x30, JSET = 0x40;
    private static final int K = 0x00, X = 0x08, A = 0x10;
    private static final int TAX = 0x00, TXA = 0x80;

    /** BPF_MEMWORDS. */
    private static final int MEMWORDS = 16;
    /** sizeof(struct seccomp_data), what LD|W|LEN loads. */
    private static final int DATA_SIZE = 64;

    // The decoded operations, one per opcode seccomp accepts (dense for the switch).
    private static final int OP_LD_ABS = 0, OP_LD_IMM = 1, OP_LDX_IMM = 2, OP_LD_MEM = 3, OP_LDX_MEM = 4,
            OP_ST = 5, OP_STX = 6, OP_TAX = 7, OP_TXA = 8, OP_ADD_K = 9, OP_ADD_X = 10, OP_SUB_K = 11,
            OP_SUB_X = 12, OP_MUL_K = 13, OP_MUL_X = 14, OP_DIV_K = 15, OP_DIV_X = 16, OP_AND_K = 17,
            OP_AND_X = 18, OP_OR_K = 19, OP_OR_X = 20, OP_XOR_K = 21, OP_XOR_X = 22, OP_LSH_K = 23,
            OP_LSH_X = 24, OP_RSH_K = 25, OP_RSH_X = 26, OP_NEG = 27, OP_JA = 28, OP_JEQ_K = 29, OP_JEQ_X = 30,
            OP_JGT_K = 31, OP_JGT_X = 32, OP_JGE_K = 33, OP_JGE_X = 34, OP_JSET_K = 35, OP_JSET_X = 36,
            OP_RET_K = 37, OP_RET_A = 38;

    private static final ThreadLocal<int[]> SCRATCH = ThreadLocal.withInitial(() -> new int[MEMWORDS]);

    private static volatile Prepared last;

    /** The program's 32-bit return value (SECCOMP_RET_* action in the high bits, data in the low 16). */
    public static int evaluate(Program program, SeccompData data) {
        Prepared prepared = last;
        if (prepared == null || prepared.program != program) {
            prepared = prepare(program);
            last = prepared;
        }
        return prepared.evaluate(data);
    }

    /**
     * Checks the program as the kernel does when it is loaded for seccomp and decodes it for
     * {@link Prepared#evaluate}.
     *
     * @throws IllegalArgumentException naming the first instruction the kernel would refuse
     */
    public static Prepared prepare(Program program) {
        return new Prepared(program);
    }

    /** A checked, decoded program: evaluating it allocates nothing. */
    public static final class Prepared {
        private final Program program;
        private final byte[] ops;
        private final int[] ks;
        /** For conditional jumps the two targets as absolute indexes; for JA the target in {@link #jt}. */
        private final short[] jt, jf;
        private final boolean usesMemory;

        private Prepared(Program program) {
            this.program = program;
            int n = program.size();
            ops = new byte[n];
            ks = new int[n];
            jt = new short[n];
            jf = new short[n];
            boolean memory = false;
            for (int pc = 0; pc < n; pc++) {
                Instruction insn = program.get(pc);
                int op = decode(insn, pc, n);
                ops[pc] = (byte) op;
                // LD|W|LEN and LDX|W|LEN load the length of seccomp_data, as the kernel rewrites them.
                ks[pc] = insn.code() == (LD | W | LEN) || insn.code() == (LDX | W | LEN) ? DATA_SIZE : insn.k();
                switch (op) {
                    case OP_JA -> jt[pc] = (short) (pc + 1 + insn.k());
                    case OP_JEQ_K, OP_JEQ_X, OP_JGT_K, OP_JGT_X, OP_JGE_K, OP_JGE_X, OP_JSET_K, OP_JSET_X -> {
                        jt[pc] = (short) (pc + 1 + insn.jt());
                        jf[pc] = (short) (pc + 1 + insn.jf());
                    }
                    case OP_LD_MEM, OP_LDX_MEM, OP_ST, OP_STX -> memory = true;
                    default -> { }
                }
            }
            if (ops[n - 1] != OP_RET_K && ops[n - 1] != OP_RET_A) {
                throw new IllegalArgumentException("seccomp program: the last instruction (" + (n - 1)
                        + ") is not a return");
            }
            if (memory) {
                checkLoadsAfterStores();
            }
            usesMemory = memory;
        }

        /** The program this was prepared from. */
        public Program program() {
            return program;
        }

        /** The program's 32-bit return value for this syscall. */
        public int evaluate(SeccompData data) {
            int[] mem = usesMemory ? SCRATCH.get() : null;
            byte[] ops = this.ops;
            int[] ks = this.ks;
            int a = 0, x = 0;
            int pc = 0;
            while (true) {
                int k = ks[pc];
                switch (ops[pc]) {
                    case OP_LD_ABS -> a = data.word(k);
                    case OP_LD_IMM -> a = k;
                    case OP_LDX_IMM -> x = k;
                    case OP_LD_MEM -> a = mem[k];
                    case OP_LDX_MEM -> x = mem[k];
                    case OP_ST -> mem[k] = a;
                    case OP_STX -> mem[k] = x;
                    case OP_TAX -> x = a;
                    case OP_TXA -> a = x;
                    case OP_ADD_K -> a += k;
                    case OP_ADD_X -> a += x;
                    case OP_SUB_K -> a -= k;
                    case OP_SUB_X -> a -= x;
                    case OP_MUL_K -> a *= k;
                    case OP_MUL_X -> a *= x;
                    case OP_DIV_K -> a = Integer.divideUnsigned(a, k);
                    case OP_DIV_X -> {
                        if (x == 0) {
                            return 0; // classic BPF: division by zero ends the program with 0
                        }
                        a = Integer.divideUnsigned(a, x);
                    }
                    case OP_AND_K -> a &= k;
                    case OP_AND_X -> a &= x;
                    case OP_OR_K -> a |= k;
                    case OP_OR_X -> a |= x;
                    case OP_XOR_K -> a ^= k;
                    case OP_XOR_X -> a ^= x;
                    case OP_LSH_K -> a <<= k;
                    case OP_LSH_X -> a <<= x; // the kernel masks a register shift to 5 bits, as Java does
                    case OP_RSH_K -> a >>>= k;
                    case OP_RSH_X -> a >>>= x;
                    case OP_NEG -> a = -a;
                    case OP_JA -> {
                        pc = jt[pc];
                        continue;
                    }
                    case OP_JEQ_K -> {
                        pc = a == k ? jt[pc] : jf[pc];
                        continue;
                    }
                    case OP_JEQ_X -> {
                        pc = a == x ? jt[pc] : jf[pc];
                        continue;
                    }
                    case OP_JGT_K -> {
                        pc = Integer.compareUnsigned(a, k) > 0 ? jt[pc] : jf[pc];
                        continue;
                    }
                    case OP_JGT_X -> {
                        pc = Integer.compareUnsigned(a, x) > 0 ? jt[pc] : jf[pc];
                        continue;
                    }
                    case OP_JGE_K -> {
                        pc = Integer.compareUnsigned(a, k) >= 0 ? jt[pc] : jf[pc];
                        continue;
                    }
                    case OP_JGE_X -> {
                        pc = Integer.compareUnsigned(a, x) >= 0 ? jt[pc] : jf[pc];
                        continue;
                    }
                    case OP_JSET_K -> {
                        pc = (a & k) != 0 ? jt[pc] : jf[pc];
                        continue;
                    }
                    case OP_JSET_X -> {
                        pc = (a & x) != 0 ? jt[pc] : jf[pc];
                        continue;
                    }
                    case OP_RET_K -> {
                        return k;
                    }
                    case OP_RET_A -> {
                        return a;
                    }
                    default -> throw new AssertionError(ops[pc]);
                }
                pc++;
            }
        }

        /**
         * The kernel's check_load_and_stores: a scratch word may only be loaded where every path to the load
         * stored it. Jumps only go forward, so one pass suffices: each instruction's known-stored set is the
         * intersection of what each path reaching it carries. Like the kernel, the fall-through from a return
         * counts as a path (which can only make the check stricter).
         */
        private void checkLoadsAfterStores() {
            int n = ops.length;
            int[] reaching = new int[n];
            java.util.Arrays.fill(reaching, 0xffff);
            int stored = 0;
            for (int pc = 0; pc < n; pc++) {
                stored &= reaching[pc];
                int k = ks[pc];
                switch (ops[pc]) {
                    case OP_ST, OP_STX -> stored |= 1 << k;
                    case OP_LD_MEM, OP_LDX_MEM -> {
                        if ((stored & (1 << k)) == 0) {
                            throw new IllegalArgumentException("seccomp program: instruction " + pc
                                    + " loads scratch word " + k + " before it is stored");
                        }
                    }
                    case OP_JA -> {
                        reaching[jt[pc]] &= stored;
                        stored = 0xffff;
                    }
                    case OP_JEQ_K, OP_JEQ_X, OP_JGT_K, OP_JGT_X, OP_JGE_K, OP_JGE_X, OP_JSET_K, OP_JSET_X -> {
                        reaching[jt[pc]] &= stored;
                        reaching[jf[pc]] &= stored;
                        stored = 0xffff;
                    }
                    default -> { }
                }
            }
        }
    }

    /** The operation of one instruction, checked as the kernel checks it at load. */
    private static int decode(Instruction insn, int pc, int n) {
        int code = insn.code();
        int k = insn.k();
        int op = switch (code) {
            case LD | W | ABS -> {
                if (Integer.compareUnsigned(k, DATA_SIZE) >= 0 || (k & 3) != 0) {
                    throw refused(pc, insn, "loads outside the aligned words of seccomp_data");
                }
                yield OP_LD_ABS;
            }
            case LD | W | LEN -> OP_LD_IMM;
            case LDX | W | LEN -> OP_LDX_IMM;
            case LD | IMM -> OP_LD_IMM;
            case LDX | IMM -> OP_LDX_IMM;
            case LD | MEM -> OP_LD_MEM;
            case LDX | MEM -> OP_LDX_MEM;
            case ST -> OP_ST;
            case STX -> OP_STX;
            case MISC | TAX -> OP_TAX;
            case MISC | TXA -> OP_TXA;
            case ALU | ADD | K -> OP_ADD_K;
            case ALU | ADD | X -> OP_ADD_X;
            case ALU | SUB | K -> OP_SUB_K;
            case ALU | SUB | X -> OP_SUB_X;
            case ALU | MUL | K -> OP_MUL_K;
            case ALU | MUL | X -> OP_MUL_X;
            case ALU | DIV | K -> OP_DIV_K;
            case ALU | DIV | X -> OP_DIV_X;
            case ALU | AND | K -> OP_AND_K;
            case ALU | AND | X -> OP_AND_X;
            case ALU | OR | K -> OP_OR_K;
            case ALU | OR | X -> OP_OR_X;
            case ALU | XOR | K -> OP_XOR_K;
            case ALU | XOR | X -> OP_XOR_X;
            case ALU | LSH | K -> OP_LSH_K;
            case ALU | LSH | X -> OP_LSH_X;
            case ALU | RSH | K -> OP_RSH_K;
            case ALU | RSH | X -> OP_RSH_X;
            case ALU | NEG -> OP_NEG;
            case JMP | JA -> OP_JA;
            case JMP | JEQ | K -> OP_JEQ_K;
            case JMP | JEQ | X -> OP_JEQ_X;
            case JMP | JGT | K -> OP_JGT_K;
            case JMP | JGT | X -> OP_JGT_X;
            case JMP | JGE | K -> OP_JGE_K;
            case JMP | JGE | X -> OP_JGE_X;
            case JMP | JSET | K -> OP_JSET_K;
            case JMP | JSET | X -> OP_JSET_X;
            case RET | K -> OP_RET_K;
            case RET | A -> OP_RET_A;
            default -> throw refused(pc, insn, "has an opcode seccomp does not accept");
        };
        switch (op) {
            case OP_LD_MEM, OP_LDX_MEM, OP_ST, OP_STX -> {
                if (Integer.compareUnsigned(k, MEMWORDS) >= 0) {
                    throw refused(pc, insn, "names a scratch word past " + (MEMWORDS - 1));
                }
            }
            case OP_DIV_K -> {
                if (k == 0) {
                    throw refused(pc, insn, "divides by zero");
                }
            }
            case OP_LSH_K, OP_RSH_K -> {
                if (Integer.compareUnsigned(k, 32) >= 0) {
                    throw refused(pc, insn, "shifts by 32 or more");
                }
            }
            case OP_JA -> {
                if (Integer.compareUnsigned(k, n - pc - 1) >= 0) {
                    throw refused(pc, insn, "jumps past the end of the program");
                }
            }
            case OP_JEQ_K, OP_JEQ_X, OP_JGT_K, OP_JGT_X, OP_JGE_K, OP_JGE_X, OP_JSET_K, OP_JSET_X -> {
                if (pc + insn.jt() + 1 >= n || pc + insn.jf() + 1 >= n) {
                    throw refused(pc, insn, "jumps past the end of the program");
                }
            }
            default -> { }
        }
        return op;
    }

    private static IllegalArgumentException refused(int pc, Instruction insn, String why) {
        return new IllegalArgumentException(String.format(
                "seccomp program: instruction %d {0x%02x, %d, %d, 0x%08x} %s", pc, insn.code(), insn.jt(),
                insn.jf(), insn.k(), why));
    }
}
