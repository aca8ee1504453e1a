package io.jrunc.seccomp;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;

/** A classic BPF program for seccomp(SECCOMP_SET_MODE_FILTER): at most 4096 instructions (BPF_MAXINSNS). */
public record Program(List<Instruction> instructions) {
    public static final int MAX_INSTRUCTIONS = 4096;

    public Program {
        instructions = List.copyOf(instructions);
        if (instructions.isEmpty() || instructions.size() > MAX_INSTRUCTIONS) {
            throw new IllegalArgumentException("a seccomp program has 1 to 4096 instructions, not "
                    + instructions.size());
        }
    }

    public int size() {
        return instructions.size();
    }

    public Instruction get(int i) {
        return instructions.get(i);
    }

    /** The program {@link #toBytes} wrote; a length that is not a whole number of instructions is refused. */
    public static Program fromBytes(byte[] bytes) {
        if (bytes.length % 8 != 0) {
            throw new IllegalArgumentException("a seccomp program is 8 bytes an instruction, not " + bytes.length);
        }
        ByteBuffer in = ByteBuffer.wrap(bytes).order(ByteOrder.nativeOrder());
        List<Instruction> instructions = new java.util.ArrayList<>(bytes.length / 8);
        while (in.hasRemaining()) {
            instructions.add(new Instruction(in.getShort() & 0xffff, in.get() & 0xff, in.get() & 0xff, in.getInt()));
        }
        return new Program(instructions);
    }

    /** The program as an array of {@code struct sock_filter} in native (little-endian) byte order. */
    public byte[] toBytes() {
        ByteBuffer out = ByteBuffer.allocate(instructions.size() * 8).order(ByteOrder.nativeOrder());
        for (Instruction insn : instructions) {
            out.putShort((short) insn.code()).put((byte) insn.jt()).put((byte) insn.jf()).putInt(insn.k());
        }
        return out.array();
    }
}
