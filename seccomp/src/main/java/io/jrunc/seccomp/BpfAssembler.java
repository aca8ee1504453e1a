package io.jrunc.seccomp;

import java.util.ArrayList;
import java.util.Arrays;

/**
 * Classic BPF with symbolic forward jumps. Conditional jumps name labels; {@link #finish} places them,
 * and where a target is more than 255 instructions away (jt/jf are 8 bits) it puts a {@code ja}
 * trampoline (32-bit offset) right after the jump. One backward pass suffices: a trampoline only
 * lengthens jumps that come before it, which the pass has not placed yet.
 */
final class BpfAssembler {
    static final int LD_W_ABS = 0x20, ALU_AND_K = 0x54, JA = 0x05, JEQ_K = 0x15, JGT_K = 0x25, JGE_K = 0x35,
            JSET_K = 0x45, RET_K = 0x06;

    private static final int PLAIN = 0, COND = 1, ALWAYS = 2;

    private int[] code = new int[256], k = new int[256], jt = new int[256], jf = new int[256];
    private byte[] kind = new byte[256];
    private int n;
    private int[] labelItem = new int[64];
    private int labels;

    int newLabel() {
        if (labels == labelItem.length) {
            labelItem = Arrays.copyOf(labelItem, labels * 2);
        }
        labelItem[labels] = -1;
        return labels++;
    }

    /** The label marks the next instruction emitted. */
    void bind(int label) {
        labelItem[label] = n;
    }

    int size() {
        return n;
    }

    void stmt(int opcode, int operand) {
        add(PLAIN, opcode, operand, -1, -1);
    }

    void ret(int value) {
        add(PLAIN, RET_K, value, -1, -1);
    }

    void jump(int opcode, int operand, int trueLabel, int falseLabel) {
        add(COND, opcode, operand, trueLabel, falseLabel);
    }

    void ja(int label) {
        add(ALWAYS, JA, 0, label, -1);
    }

    private void add(int kd, int opcode, int operand, int t, int f) {
        if (n == code.length) {
            int len = n * 2;
            code = Arrays.copyOf(code, len);
            k = Arrays.copyOf(k, len);
            jt = Arrays.copyOf(jt, len);
            jf = Arrays.copyOf(jf, len);
            kind = Arrays.copyOf(kind, len);
        }
        kind[n] = (byte) kd;
        code[n] = opcode;
        k[n] = operand;
        jt[n] = t;
        jf[n] = f;
        n++;
    }

    Program finish() {
        // Built back to front: fromEnd[i] is item i's distance from the program's last instruction.
        int[] fromEnd = new int[n];
        int cap = n + 16;
        int[] oc = new int[cap], ok = new int[cap], ot = new int[cap], of = new int[cap];
        int out = 0;
        for (int i = n - 1; i >= 0; i--) {
            if (out + 3 > oc.length) {
                int len = oc.length * 2;
                oc = Arrays.copyOf(oc, len);
                ok = Arrays.copyOf(ok, len);
                ot = Arrays.copyOf(ot, len);
                of = Arrays.copyOf(of, len);
            }
            switch (kind[i]) {
                case PLAIN -> {
                    oc[out] = code[i];
                    ok[out] = k[i];
                    out++;
                }
                case ALWAYS -> {
                    oc[out] = JA;
                    ok[out] = out - target(fromEnd, jt[i], i) - 1;
                    out++;
                }
                default -> {
                    int tt = target(fromEnd, jt[i], i);
                    int tf = target(fromEnd, jf[i], i);
                    // Trampolines go after the jump: appended first, as the pass runs backwards.
                    if (out - tf - 1 > 255) {
                        oc[out] = JA;
                        ok[out] = out - tf - 1;
                        tf = out++;
                    }
                    if (out - tt - 1 > 255) {
                        oc[out] = JA;
                        ok[out] = out - tt - 1;
                        tt = out++;
                    }
                    oc[out] = code[i];
                    ok[out] = k[i];
                    ot[out] = out - tt - 1;
                    of[out] = out - tf - 1;
                    out++;
                }
            }
            fromEnd[i] = out - 1;
        }
        ArrayList<Instruction> insns = new ArrayList<>(out);
        for (int j = out - 1; j >= 0; j--) {
            insns.add(new Instruction(oc[j], ot[j], of[j], ok[j]));
        }
        if (out > Program.MAX_INSTRUCTIONS) {
            throw new SeccompException("linux.seccomp: the compiled filter has " + out
                    + " instructions, more than the kernel's " + Program.MAX_INSTRUCTIONS);
        }
        return new Program(insns);
    }

    private int target(int[] fromEnd, int label, int from) {
        int item = labelItem[label];
        if (item <= from || item >= n) {
            throw new IllegalStateException("unbound or backward label " + label);
        }
        return fromEnd[item];
    }
}
