package io.jrunc.cgroups;

import static io.jrunc.bindings.Bpf.BPF_ALU;
import static io.jrunc.bindings.Bpf.BPF_AND;
import static io.jrunc.bindings.Bpf.BPF_EXIT;
import static io.jrunc.bindings.Bpf.BPF_JMP;
import static io.jrunc.bindings.Bpf.BPF_JNE;
import static io.jrunc.bindings.Bpf.BPF_K;
import static io.jrunc.bindings.Bpf.BPF_LDX;
import static io.jrunc.bindings.Bpf.BPF_MEM;
import static io.jrunc.bindings.Bpf.BPF_MOV;
import static io.jrunc.bindings.Bpf.BPF_RSH;
import static io.jrunc.bindings.Bpf.BPF_W;
import static io.jrunc.bindings.Bpf.BPF_X;

import io.jrunc.bindings.Bpf;
import io.jrunc.spec.LinuxDeviceCgroup;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

/**
 * The BPF_PROG_TYPE_CGROUP_DEVICE program for a set of device rules, as eBPF instructions. The kernel
 * runs it for every device open and mknod in the cgroup with {@code struct bpf_cgroup_dev_ctx} in r1
 * ({@code u32 access_type} = access &lt;&lt; 16 | type, {@code u32 major}, {@code u32 minor}) and
 * allows the access when it returns 1.
 *
 * <p>Layout (the same instructions, in the same order, as runc's generator for the same rules):
 * <pre>
 *   r2 = *(u32 *)(r1 + 0); w2 &amp;= 0xffff     device type (1 block, 2 char)
 *   r3 = *(u32 *)(r1 + 0); w3 &gt;&gt;= 16        access asked for (1 mknod, 2 read, 4 write)
 *   r4 = *(u32 *)(r1 + 4)                     major
 *   r5 = *(u32 *)(r1 + 8)                     minor
 *   for each exception of {@link EffectiveDeviceRules}, in its order:
 *     if r2 != type goto next
 *     w1 = w3; w1 &amp;= access; if r1 != r3 goto next     unless the exception covers rwm
 *     if r4 != major goto next                           unless the major is a wildcard
 *     if r5 != minor goto next                           unless the minor is a wildcard
 *     w0 = action; exit
 *   next: ...
 *   w0 = default; exit
 * </pre>
 * The access test accepts when every access asked for is in the exception (the asked set is a
 * subset), as the v1 controller decides.
 *
 * <p>{@code struct bpf_insn} is 8 bytes: opcode (u8), dst_reg:4 and src_reg:4 (one byte; on a
 * little-endian machine dst is the low nibble), off (s16), imm (s32), in the machine's byte order.
 */
final class DeviceFilterProgram {
    /**
     * The kernel reads the license only to let a program call GPL-only helpers; this one calls no
     * helper, so any string is accepted. runc's says "Apache"; so does this one.
     */
    static final String LICENSE = "Apache";
    /** What bpftool and /proc/PID/fdinfo show (at most 15 characters). */
    static final String NAME = "jrunc_devices";

    static final int R0 = 0, R1 = 1, R2 = 2, R3 = 3, R4 = 4, R5 = 5;
    // struct bpf_cgroup_dev_ctx (include/uapi/linux/bpf.h): access_type, major, minor
    static final short CTX_ACCESS_TYPE = 0, CTX_MAJOR = 4, CTX_MINOR = 8;

    /** One instruction, before encoding. */
    record Instruction(int opcode, int dst, int src, short off, int imm) {}

    private final List<Instruction> instructions;

    private DeviceFilterProgram(List<Instruction> instructions) {
        this.instructions = List.copyOf(instructions);
    }

    /** The program for {@code rules} (see {@link EffectiveDeviceRules#of} for the errors). */
    static DeviceFilterProgram of(List<LinuxDeviceCgroup> rules) throws CgroupException {
        return of(EffectiveDeviceRules.of(rules));
    }

    static DeviceFilterProgram of(EffectiveDeviceRules rules) {
        List<Instruction> out = new ArrayList<>();
        out.add(loadWord(R2, CTX_ACCESS_TYPE));
        out.add(alu32Imm(BPF_AND, R2, 0xffff));
        out.add(loadWord(R3, CTX_ACCESS_TYPE));
        out.add(alu32Imm(BPF_RSH, R3, 16));
        out.add(loadWord(R4, CTX_MAJOR));
        out.add(loadWord(R5, CTX_MINOR));
        int action = rules.defaultAllow() ? 0 : 1;
        for (EffectiveDeviceRules.Entry e : rules.exceptions()) {
            boolean checkAccess = e.access() != EffectiveDeviceRules.RWM;
            boolean checkMajor = e.major() != EffectiveDeviceRules.ANY;
            boolean checkMinor = e.minor() != EffectiveDeviceRules.ANY;
            int length = 1 + (checkAccess ? 3 : 0) + (checkMajor ? 1 : 0) + (checkMinor ? 1 : 0) + 2;
            int next = out.size() + length;
            int type = e.type() == 'b' ? Bpf.BPF_DEVCG_DEV_BLOCK : Bpf.BPF_DEVCG_DEV_CHAR;
            out.add(jumpIfNotImm(R2, type, next - out.size() - 1));
            if (checkAccess) {
                out.add(new Instruction(BPF_ALU | BPF_MOV | BPF_X, R1, R3, (short) 0, 0));
                out.add(alu32Imm(BPF_AND, R1, e.access()));
                out.add(new Instruction(BPF_JMP | BPF_JNE | BPF_X, R1, R3, (short) (next - out.size() - 1), 0));
            }
            if (checkMajor) {
                // 64-bit compare with a sign-extended imm, as runc: majors and minors above 2^31 never
                // match, which changes nothing because Linux's are 12 and 20 bits wide
                out.add(jumpIfNotImm(R4, (int) e.major(), next - out.size() - 1));
            }
            if (checkMinor) {
                out.add(jumpIfNotImm(R5, (int) e.minor(), next - out.size() - 1));
            }
            returning(out, action);
            if (out.size() != next) {
                throw new IllegalStateException("block length " + length + " but wrote up to " + out.size());
            }
        }
        returning(out, rules.defaultAllow() ? 1 : 0);
        return new DeviceFilterProgram(out);
    }

    private static Instruction loadWord(int dst, short offset) {
        return new Instruction(BPF_LDX | BPF_MEM | BPF_W, dst, R1, offset, 0);
    }

    private static Instruction alu32Imm(int op, int dst, int imm) {
        return new Instruction(BPF_ALU | op | BPF_K, dst, 0, (short) 0, imm);
    }

    private static Instruction jumpIfNotImm(int dst, int imm, int offset) {
        return new Instruction(BPF_JMP | BPF_JNE | BPF_K, dst, 0, (short) offset, imm);
    }

    private static void returning(List<Instruction> out, int value) {
        out.add(new Instruction(BPF_ALU | BPF_MOV | BPF_K, R0, 0, (short) 0, value));
        out.add(new Instruction(BPF_JMP | BPF_EXIT, 0, 0, (short) 0, 0));
    }

    List<Instruction> instructions() {
        return instructions;
    }

    /** The program as {@code struct bpf_insn}s in this machine's byte order, for BPF_PROG_LOAD. */
    byte[] bytes() {
        return encode(instructions, ByteOrder.nativeOrder());
    }

    static byte[] encode(List<Instruction> instructions, ByteOrder order) {
        ByteBuffer buffer = ByteBuffer.allocate(instructions.size() * Bpf.BPF_INSN_SIZE).order(order);
        boolean little = order == ByteOrder.LITTLE_ENDIAN;
        for (Instruction i : instructions) {
            // the bitfields dst_reg:4, src_reg:4 are allocated from the low bits on little-endian ABIs
            // and from the high bits on big-endian ones
            int registers = little ? (i.src() << 4) | i.dst() : (i.dst() << 4) | i.src();
            buffer.put((byte) i.opcode()).put((byte) registers).putShort(i.off()).putInt(i.imm());
        }
        return buffer.array();
    }

    int length() {
        return instructions.size();
    }
}
