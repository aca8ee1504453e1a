package io.jrunc.seccomp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The evaluator against hand-written programs; OracleTest runs it over libseccomp's and the compiler's. */
class FilterEvaluatorTest {
    // Opcodes spelled out, so that a wrong constant in the evaluator cannot hide in a shared one.
    private static final int LD_ABS = 0x20, LD_LEN = 0x80, LDX_LEN = 0x81, LD_IMM = 0x00, LDX_IMM = 0x01,
            LD_MEM = 0x60, LDX_MEM = 0x61, ST = 0x02, STX = 0x03, TAX = 0x07, TXA = 0x87, RET_K = 0x06,
            RET_A = 0x16, JA = 0x05, JEQ_K = 0x15, JEQ_X = 0x1d, JGT_K = 0x25, JGT_X = 0x2d, JGE_K = 0x35,
            JGE_X = 0x3d, JSET_K = 0x45, JSET_X = 0x4d;
    private static final int ADD = 0x04, SUB = 0x14, MUL = 0x24, DIV = 0x34, OR = 0x44, AND = 0x54,
            LSH = 0x64, RSH = 0x74, NEG = 0x84, MOD = 0x94, XOR = 0xa4, X = 0x08;

    private static final SeccompData DATA = new SeccompData(59, Arch.X86_64.auditArch(), 0x1122334455667788L,
            new long[] {0xdeadbeefcafef00dL, 1, -1L, 0x80000000L, 0x100000000L, 7});

    private static Instruction s(int code, int k) {
        return Instruction.stmt(code, k);
    }

    private static Instruction j(int code, int k, int jt, int jf) {
        return Instruction.jump(code, k, jt, jf);
    }

    private static int run(SeccompData data, Instruction... insns) {
        return FilterEvaluator.evaluate(new Program(List.of(insns)), data);
    }

    private static int run(Instruction... insns) {
        return run(DATA, insns);
    }

    private static void refused(Instruction... insns) {
        Program program = new Program(List.of(insns));
        assertThrows(IllegalArgumentException.class, () -> FilterEvaluator.evaluate(program, DATA));
        assertThrows(IllegalArgumentException.class, () -> FilterEvaluator.prepare(program));
    }

    @Test
    void loadsEveryWordOfSeccompData() {
        int[] expected = {59, Arch.X86_64.auditArch(), 0x55667788, 0x11223344, 0xcafef00d, 0xdeadbeef, 1, 0, -1, -1,
                0x80000000, 0, 0, 1, 7, 0};
        for (int offset = 0; offset < 64; offset += 4) {
            assertEquals(expected[offset / 4], run(s(LD_ABS, offset), s(RET_A, 0)), "offset " + offset);
        }
        assertEquals(64, run(s(LD_LEN, 0), s(RET_A, 0)));
        assertEquals(64, run(s(LDX_LEN, 0), s(TXA, 0), s(RET_A, 0)));
    }

    @Test
    void returnsTheConstantOrA() {
        assertEquals(0x7fff0000, run(s(RET_K, 0x7fff0000)));
        assertEquals(0x80000000, run(s(LD_IMM, 0x80000000), s(RET_A, 0)));
        assertEquals(0, run(s(RET_A, 0)), "A starts at 0");
        assertEquals(0, run(s(TXA, 0), s(RET_A, 0)), "X starts at 0");
    }

    @Test
    void arithmeticIs32BitUnsigned() {
        assertEquals(0, run(s(LD_IMM, -1), s(ADD, 1), s(RET_A, 0)));
        assertEquals(-1, run(s(LD_IMM, 0), s(SUB, 1), s(RET_A, 0)));
        assertEquals(0xfffffffe, run(s(LD_IMM, 0x7fffffff), s(MUL, 2), s(RET_A, 0)));
        assertEquals(0x7fffffff, run(s(LD_IMM, -1), s(DIV, 2), s(RET_A, 0)), "unsigned division");
        assertEquals(0x0f, run(s(LD_IMM, 0xff), s(AND, 0x0f), s(RET_A, 0)));
        assertEquals(0xff, run(s(LD_IMM, 0xf0), s(OR, 0x0f), s(RET_A, 0)));
        assertEquals(0xf0, run(s(LD_IMM, 0xff), s(XOR, 0x0f), s(RET_A, 0)));
        assertEquals(0x80000000, run(s(LD_IMM, 1), s(LSH, 31), s(RET_A, 0)));
        assertEquals(1, run(s(LD_IMM, 0x80000000), s(RSH, 31), s(RET_A, 0)), "logical shift");
        assertEquals(-5, run(s(LD_IMM, 5), s(NEG, 0), s(RET_A, 0)));
        // The same with X as the operand.
        assertEquals(12, run(s(LD_IMM, 7), s(LDX_IMM, 5), s(ADD | X, 0), s(RET_A, 0)));
        assertEquals(2, run(s(LD_IMM, 7), s(LDX_IMM, 5), s(SUB | X, 0), s(RET_A, 0)));
        assertEquals(35, run(s(LD_IMM, 7), s(LDX_IMM, 5), s(MUL | X, 0), s(RET_A, 0)));
        assertEquals(0x33333333, run(s(LD_IMM, -1), s(LDX_IMM, 5), s(DIV | X, 0), s(RET_A, 0)));
        assertEquals(5, run(s(LD_IMM, 7), s(LDX_IMM, 5), s(AND | X, 0), s(RET_A, 0)));
        assertEquals(7, run(s(LD_IMM, 7), s(LDX_IMM, 5), s(OR | X, 0), s(RET_A, 0)));
        assertEquals(2, run(s(LD_IMM, 7), s(LDX_IMM, 5), s(XOR | X, 0), s(RET_A, 0)));
        assertEquals(7 << 5, run(s(LD_IMM, 7), s(LDX_IMM, 5), s(LSH | X, 0), s(RET_A, 0)));
        assertEquals(0x07ffffff, run(s(LD_IMM, -1), s(LDX_IMM, 5), s(RSH | X, 0), s(RET_A, 0)));
        assertEquals(7, run(s(LD_IMM, 7), s(TAX, 0), s(LD_IMM, 0), s(TXA, 0), s(RET_A, 0)));
    }

    @Test
    void divisionByARegisterZeroReturnsZero() {
        assertEquals(0, run(s(LD_IMM, 7), s(LDX_IMM, 0), s(DIV | X, 0), s(RET_K, 0x7fff0000)));
    }

    @Test
    void comparisonsAreUnsigned() {
        // 0xffffffff > 1 unsigned (it would not be signed).
        Instruction[] jgt = {s(LD_IMM, -1), j(JGT_K, 1, 0, 1), s(RET_K, 1), s(RET_K, 2)};
        assertEquals(1, run(jgt));
        assertEquals(2, run(s(LD_IMM, 1), j(JGT_K, 1, 0, 1), s(RET_K, 1), s(RET_K, 2)));
        assertEquals(1, run(s(LD_IMM, 1), j(JGE_K, 1, 0, 1), s(RET_K, 1), s(RET_K, 2)));
        assertEquals(2, run(s(LD_IMM, 0), j(JGE_K, 0x80000000, 0, 1), s(RET_K, 1), s(RET_K, 2)));
        assertEquals(1, run(s(LD_IMM, 0x80000000), j(JEQ_K, 0x80000000, 0, 1), s(RET_K, 1), s(RET_K, 2)));
        assertEquals(1, run(s(LD_IMM, 0x40000001), j(JSET_K, 0x40000000, 0, 1), s(RET_K, 1), s(RET_K, 2)));
        assertEquals(2, run(s(LD_IMM, 0x3fffffff), j(JSET_K, 0x40000000, 0, 1), s(RET_K, 1), s(RET_K, 2)));
        // The X forms.
        assertEquals(1, run(s(LDX_IMM, 1), s(LD_IMM, -1), j(JGT_X, 0, 0, 1), s(RET_K, 1), s(RET_K, 2)));
        assertEquals(2, run(s(LDX_IMM, -1), s(LD_IMM, 1), j(JGE_X, 0, 0, 1), s(RET_K, 1), s(RET_K, 2)));
        assertEquals(1, run(s(LDX_IMM, 9), s(LD_IMM, 9), j(JEQ_X, 0, 0, 1), s(RET_K, 1), s(RET_K, 2)));
        assertEquals(2, run(s(LDX_IMM, 6), s(LD_IMM, 9), j(JSET_X, 0, 0, 1), s(RET_K, 1), s(RET_K, 2)));
    }

    @Test
    void jumpOffsetsCountFromTheNextInstruction() {
        assertEquals(3, run(s(JA, 2), s(RET_K, 1), s(RET_K, 2), s(RET_K, 3)));
        assertEquals(3, run(j(JEQ_K, 0, 2, 0), s(RET_K, 1), s(RET_K, 2), s(RET_K, 3)));
        assertEquals(2, run(j(JEQ_K, 1, 2, 1), s(RET_K, 1), s(RET_K, 2), s(RET_K, 3)));
        // Offsets are unsigned bytes: 255 reaches 256 instructions ahead.
        List<Instruction> far = new ArrayList<>();
        far.add(j(JEQ_K, 0, 255, 0));
        for (int i = 0; i < 255; i++) {
            far.add(s(RET_K, 1));
        }
        far.add(s(RET_K, 2));
        assertEquals(2, FilterEvaluator.evaluate(new Program(far), DATA));
    }

    @Test
    void scratchMemory() {
        assertEquals(42, run(s(LD_IMM, 42), s(ST, 15), s(LD_IMM, 0), s(LD_MEM, 15), s(RET_A, 0)));
        assertEquals(43, run(s(LDX_IMM, 43), s(STX, 0), s(LDX_MEM, 0), s(TXA, 0), s(RET_A, 0)));
        // Stored on both paths before the join.
        assertEquals(5, run(j(JEQ_K, 0, 0, 3), s(LD_IMM, 5), s(ST, 3), s(JA, 2), s(LD_IMM, 6), s(ST, 3),
                s(LD_MEM, 3), s(RET_A, 0)));
        // Each call starts with the same program state: a previous run's scratch words never leak, because a
        // word can only be loaded after this run stored it.
        Program program = new Program(List.of(s(LD_ABS, 0), s(ST, 1), s(LD_MEM, 1), s(RET_A, 0)));
        assertEquals(59, FilterEvaluator.evaluate(program, DATA));
        assertEquals(7, FilterEvaluator.evaluate(program, SeccompData.of(Arch.X86, 7)));
    }

    @Test
    void refusesWhatTheKernelRefuses() {
        refused(s(LD_ABS, 2), s(RET_A, 0)); // unaligned
        refused(s(LD_ABS, 64), s(RET_A, 0)); // past seccomp_data
        refused(s(LD_ABS, -4), s(RET_A, 0));
        refused(s(0x28, 0), s(RET_A, 0)); // LD|H|ABS
        refused(s(0x30, 0), s(RET_A, 0)); // LD|B|ABS
        refused(s(0x40, 0), s(RET_A, 0)); // LD|W|IND
        refused(s(0xb1, 0), s(RET_A, 0)); // LDX|B|MSH
        refused(s(MOD, 3), s(RET_A, 0)); // seccomp has no BPF_MOD
        refused(s(MOD | X, 0), s(RET_A, 0));
        refused(s(NEG | X, 0), s(RET_A, 0));
        refused(s(DIV, 0), s(RET_A, 0));
        refused(s(LSH, 32), s(RET_A, 0));
        refused(s(RSH, -1), s(RET_A, 0));
        refused(s(0x0e, 0)); // RET|X
        refused(s(LD_IMM, 0)); // no return at the end
        refused(s(RET_K, 0), s(LD_IMM, 0));
        refused(s(ST, 16), s(RET_A, 0));
        refused(s(LD_MEM, 16), s(RET_A, 0));
        refused(s(LD_MEM, 0), s(RET_A, 0)); // never stored
        refused(j(JEQ_K, 0, 0, 2), s(ST, 3), s(LD_IMM, 0), s(LD_MEM, 3), s(RET_A, 0)); // stored on one path
        refused(s(JA, 1), s(RET_K, 0)); // past the end
        refused(s(JA, -1), s(RET_K, 0));
        refused(j(JEQ_K, 0, 1, 0), s(RET_K, 0));
        refused(j(JGT_K, 0, 0, 1), s(RET_K, 0));
        refused(j(0x55, 0, 0, 0), s(RET_K, 0)); // JMP|0x50 is no jump
        refused(s(0xff, 0), s(RET_K, 0));
    }

    @Test
    void acceptsAJumpToTheLastInstruction() {
        assertEquals(9, run(s(JA, 1), s(RET_K, 1), s(RET_K, 9)));
        assertEquals(9, run(j(JSET_K, 0, 1, 1), s(RET_K, 1), s(RET_K, 9)));
    }

    @Test
    void evaluatingAPreparedProgramAllocatesNothing() {
        Program program = new Program(List.of(s(LD_ABS, 4), j(JEQ_K, Arch.X86_64.auditArch(), 1, 0),
                s(RET_K, 0), s(LD_ABS, 0), s(ST, 0), s(LD_ABS, 16), s(LDX_MEM, 0), j(JGT_X, 0, 0, 1),
                s(RET_K, 0x50001), s(RET_K, 0x7fff0000)));
        FilterEvaluator.Prepared prepared = FilterEvaluator.prepare(program);
        com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long sum = 0;
        for (int i = 0; i < 200_000; i++) { // warm up, so the measurement sees compiled code
            sum += prepared.evaluate(DATA) + FilterEvaluator.evaluate(program, DATA);
        }
        long before = threads.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < 100_000; i++) {
            sum += prepared.evaluate(DATA) + FilterEvaluator.evaluate(program, DATA);
        }
        long allocated = threads.getCurrentThreadAllocatedBytes() - before;
        assertTrue(allocated < 10_000, "allocated " + allocated + " bytes over 200000 evaluations (" + sum + ")");
        assertEquals(0x50001, prepared.evaluate(DATA));
    }
}
