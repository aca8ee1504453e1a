package io.jrunc.seccomp;

/**
 * One classic BPF instruction, {@code struct sock_filter} (linux/filter.h): a 16-bit opcode, two
 * 8-bit jump offsets (counted from the next instruction) and a 32-bit operand.
 */
public record Instruction(int code, int jt, int jf, int k) {
    public Instruction {
        if ((code & ~0xffff) != 0 || (jt & ~0xff) != 0 || (jf & ~0xff) != 0) {
            throw new IllegalArgumentException("sock_filter out of range: " + code + " " + jt + " " + jf);
        }
    }

    public static Instruction stmt(int code, int k) {
        return new Instruction(code, 0, 0, k);
    }

    public static Instruction jump(int code, int k, int jt, int jf) {
        return new Instruction(code, jt, jf, k);
    }
}
