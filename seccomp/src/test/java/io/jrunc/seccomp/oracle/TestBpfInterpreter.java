package io.jrunc.seccomp.oracle;

import io.jrunc.seccomp.Instruction;
import io.jrunc.seccomp.Program;
import io.jrunc.seccomp.SeccompData;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * A second classic BPF interpreter, written for the oracle apart from the product's FilterEvaluator (no
 * shared code or constants), so that a mistake in one shows up as a disagreement instead of hiding in
 * both. It dispatches on the opcode's fields (class, size, mode, operation, source) the way
 * linux/bpf_common.h spells them, reads {@code struct seccomp_data} from a little-endian 64-byte image,
 * and refuses (IllegalArgumentException) anything seccomp_check_filter would not let through or any jump
 * that leaves the program.
 */
public final class TestBpfInterpreter {
    private final int n;
    private final int[] code, jt, jf, k;

    public TestBpfInterpreter(Program program) {
        n = program.size();
        code = new int[n];
        jt = new int[n];
        jf = new int[n];
        k = new int[n];
        for (int i = 0; i < n; i++) {
            Instruction insn = program.get(i);
            code[i] = insn.code();
            jt[i] = insn.jt();
            jf[i] = insn.jf();
            k[i] = insn.k();
            check(i);
        }
        int lastClass = code[n - 1] & 0x07;
        if (lastClass != 0x06) {
            throw new IllegalArgumentException("last instruction is not BPF_RET");
        }
    }

    private void check(int i) {
        int c = code[i];
        int cls = c & 0x07;
        switch (cls) {
            case 0x00, 0x01 -> { // BPF_LD, BPF_LDX
                int size = c & 0x18;
                int mode = c & 0xe0;
                if (size != 0x00) {
                    bad(i);
                }
                switch (mode) {
                    case 0x00 -> { } // BPF_IMM
                    case 0x80 -> { } // BPF_LEN
                    case 0x60 -> { // BPF_MEM
                        if (k[i] < 0 || k[i] > 15) {
                            bad(i);
                        }
                    }
                    case 0x20 -> { // BPF_ABS, only into A
                        if (cls != 0x00 || k[i] < 0 || k[i] >= 64 || k[i] % 4 != 0) {
                            bad(i);
                        }
                    }
                    default -> bad(i);
                }
            }
            case 0x02, 0x03 -> { // BPF_ST, BPF_STX
                if ((c & ~0x07) != 0 || k[i] < 0 || k[i] > 15) {
                    bad(i);
                }
            }
            case 0x04 -> { // BPF_ALU
                int op = c & 0xf0;
                boolean x = (c & 0x08) != 0;
                if ((c & ~0xff) != 0) {
                    bad(i);
                }
                switch (op) {
                    case 0x00, 0x10, 0x20, 0x40, 0x50, 0xa0 -> { }
                    case 0x30 -> { // DIV
                        if (!x && k[i] == 0) {
                            bad(i);
                        }
                    }
                    case 0x60, 0x70 -> { // LSH, RSH
                        if (!x && (k[i] < 0 || k[i] >= 32)) {
                            bad(i);
                        }
                    }
                    case 0x80 -> { // NEG
                        if (x) {
                            bad(i);
                        }
                    }
                    default -> bad(i); // MOD (0x90) is not seccomp's, nor anything else
                }
            }
            case 0x05 -> { // BPF_JMP
                int op = c & 0xf0;
                if ((c & ~0xff) != 0) {
                    bad(i);
                }
                if (op == 0x00) {
                    if ((c & 0x08) != 0 || Long.compareUnsigned(Integer.toUnsignedLong(k[i]) + i + 1, n - 1) > 0) {
                        bad(i);
                    }
                } else if (op == 0x10 || op == 0x20 || op == 0x30 || op == 0x40) {
                    if (i + 1 + jt[i] > n - 1 || i + 1 + jf[i] > n - 1) {
                        bad(i);
                    }
                } else {
                    bad(i);
                }
            }
            case 0x06 -> { // BPF_RET: K (0x00) or A (0x10)
                if (c != 0x06 && c != 0x16) {
                    bad(i);
                }
            }
            case 0x07 -> { // BPF_MISC: TAX (0x00), TXA (0x80)
                if (c != 0x07 && c != 0x87) {
                    bad(i);
                }
            }
            default -> bad(i);
        }
    }

    private void bad(int i) {
        throw new IllegalArgumentException(String.format("instruction %d {0x%04x, %d, %d, 0x%x} is not seccomp's",
                i, code[i], jt[i], jf[i], k[i]));
    }

    /** The little-endian image of struct seccomp_data the program reads. */
    public static ByteBuffer image(SeccompData data) {
        ByteBuffer b = ByteBuffer.allocate(64).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(0, data.nr());
        b.putInt(4, data.arch());
        b.putLong(8, data.instructionPointer());
        for (int i = 0; i < 6; i++) {
            b.putLong(16 + 8 * i, data.args()[i]);
        }
        return b;
    }

    public int run(SeccompData data) {
        return run(image(data));
    }

    public int run(ByteBuffer data) {
        long a = 0, x = 0; // kept as unsigned 32-bit values in longs
        long[] mem = new long[16];
        boolean[] stored = new boolean[16];
        int pc = 0;
        while (true) {
            if (pc < 0 || pc >= n) {
                throw new IllegalStateException("pc " + pc + " left the program");
            }
            int c = code[pc];
            long kk = Integer.toUnsignedLong(k[pc]);
            int next = pc + 1;
            switch (c & 0x07) {
                case 0x00, 0x01 -> {
                    long v = switch (c & 0xe0) {
                        case 0x00 -> kk;
                        case 0x80 -> 64;
                        case 0x20 -> Integer.toUnsignedLong(data.getInt((int) kk));
                        case 0x60 -> {
                            if (!stored[(int) kk]) {
                                throw new IllegalStateException("scratch word " + kk + " read before written");
                            }
                            yield mem[(int) kk];
                        }
                        default -> throw new IllegalStateException();
                    };
                    if ((c & 0x07) == 0x00) {
                        a = v;
                    } else {
                        x = v;
                    }
                }
                case 0x02 -> {
                    mem[(int) kk] = a;
                    stored[(int) kk] = true;
                }
                case 0x03 -> {
                    mem[(int) kk] = x;
                    stored[(int) kk] = true;
                }
                case 0x04 -> {
                    long src = (c & 0x08) != 0 ? x : kk;
                    switch (c & 0xf0) {
                        case 0x00 -> a = a + src;
                        case 0x10 -> a = a - src;
                        case 0x20 -> a = a * src;
                        case 0x30 -> {
                            if (src == 0) {
                                return 0;
                            }
                            a = a / src;
                        }
                        case 0x40 -> a = a | src;
                        case 0x50 -> a = a & src;
                        case 0x60 -> a = a << (src & 31);
                        case 0x70 -> a = a >>> (src & 31);
                        case 0x80 -> a = -a;
                        case 0xa0 -> a = a ^ src;
                        default -> throw new IllegalStateException();
                    }
                    a &= 0xffffffffL;
                }
                case 0x05 -> {
                    long src = (c & 0x08) != 0 ? x : kk;
                    int op = c & 0xf0;
                    if (op == 0x00) {
                        next = pc + 1 + k[pc];
                    } else {
                        boolean taken = switch (op) {
                            case 0x10 -> a == src;
                            case 0x20 -> a > src;
                            case 0x30 -> a >= src;
                            case 0x40 -> (a & src) != 0;
                            default -> throw new IllegalStateException();
                        };
                        next = pc + 1 + (taken ? jt[pc] : jf[pc]);
                    }
                }
                case 0x06 -> {
                    return (int) ((c & 0x18) == 0x10 ? a : kk);
                }
                case 0x07 -> {
                    if ((c & 0xf8) == 0x80) {
                        a = x;
                    } else {
                        x = a;
                    }
                }
                default -> throw new IllegalStateException();
            }
            pc = next;
        }
    }
}
