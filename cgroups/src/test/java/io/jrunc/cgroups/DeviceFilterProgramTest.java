package io.jrunc.cgroups;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.fail;

import io.jrunc.spec.LinuxDeviceCgroup;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The device program: its encoding (golden bytes), and its decisions, run through a small eBPF
 * interpreter written here, over tables of (type, major, minor, access) that follow runc's semantics.
 */
class DeviceFilterProgramTest {

    static LinuxDeviceCgroup allow(String type, Long major, Long minor, String access) {
        return new LinuxDeviceCgroup(true, type, major, minor, access);
    }

    static LinuxDeviceCgroup deny(String type, Long major, Long minor, String access) {
        return new LinuxDeviceCgroup(false, type, major, minor, access);
    }

    private static final int R = EffectiveDeviceRules.READ, W = EffectiveDeviceRules.WRITE,
            M = EffectiveDeviceRules.MKNOD;

    /**
     * Derived by hand from the layout in {@link DeviceFilterProgram}: exceptions ordered by (major,
     * minor, type) with wildcards first, jump offsets counted from the next instruction. The same
     * instructions were also written out field by field as C {@code struct bpf_insn}s and dumped with gcc
     * (a scratch program, not kept), which printed exactly these bytes.
     */
    @Test
    void goldenBytesForASmallRuleSet() throws Exception {
        List<LinuxDeviceCgroup> rules = List.of(deny("a", null, null, "rwm"), allow("c", 1L, 3L, "rwm"),
                allow("c", null, null, "m"), allow("b", 8L, null, "r"));
        String expected = String.join("",
                // r2 = type, r3 = access, r4 = major, r5 = minor
                "6112000000000000", "54020000ffff0000", "6113000000000000", "7403000010000000",
                "6114040000000000", "6115080000000000",
                // c *:* m   (6..11): if r2 != 2 goto 12; w1 = w3; w1 &= 1; if r1 != r3 goto 12; w0 = 1; exit
                "5502050002000000", "bc31000000000000", "5401000001000000", "5d31020000000000",
                "b400000001000000", "9500000000000000",
                // c 1:3 rwm (12..16): if r2 != 2 goto 17; if r4 != 1 goto 17; if r5 != 3 goto 17; w0 = 1; exit
                "5502040002000000", "5504030001000000", "5505020003000000", "b400000001000000",
                "9500000000000000",
                // b 8:* r   (17..23): if r2 != 1 goto 24; w1 = w3; w1 &= 2; if r1 != r3 goto 24;
                //                     if r4 != 8 goto 24; w0 = 1; exit
                "5502060001000000", "bc31000000000000", "5401000002000000", "5d31030000000000",
                "5504020008000000", "b400000001000000", "9500000000000000",
                // default: deny
                "b400000000000000", "9500000000000000");
        DeviceFilterProgram program = DeviceFilterProgram.of(rules);
        assertEquals(26, program.length());
        byte[] little = DeviceFilterProgram.encode(program.instructions(), ByteOrder.LITTLE_ENDIAN);
        assertEquals(expected, HexFormat.of().formatHex(little));
        if (ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN) {
            assertArrayEquals(little, program.bytes());
        }
        // big-endian: registers swap nibbles, numbers swap bytes
        byte[] big = DeviceFilterProgram.encode(program.instructions(), ByteOrder.BIG_ENDIAN);
        assertEquals("5520000500000002", HexFormat.of().formatHex(big, 6 * 8, 7 * 8));
    }

    @Test
    void noRulesDenyEverythingAndAllowAllIsOneReturn() throws Exception {
        assertEquals("b400000000000000", hex(DeviceFilterProgram.of(List.of()), 6));
        DeviceFilterProgram all = DeviceFilterProgram.of(List.of(allow("a", null, null, "rwm")));
        assertEquals(8, all.length());
        assertEquals("b400000001000000", hex(all, 6));
    }

    private static String hex(DeviceFilterProgram p, int index) {
        return HexFormat.of().formatHex(DeviceFilterProgram.encode(p.instructions(), ByteOrder.LITTLE_ENDIAN),
                index * 8, index * 8 + 8);
    }

    // ---- an eBPF interpreter for the instructions the program uses ------------------------------

    /** Runs the little-endian program with a bpf_cgroup_dev_ctx; true when it returns 1. */
    static boolean run(byte[] program, int type, long major, long minor, int access) {
        ByteBuffer ctx = ByteBuffer.allocate(12).order(ByteOrder.LITTLE_ENDIAN);
        ctx.putInt(0, (access << 16) | type).putInt(4, (int) major).putInt(8, (int) minor);
        ByteBuffer code = ByteBuffer.wrap(program).order(ByteOrder.LITTLE_ENDIAN);
        long[] reg = new long[11];
        boolean[] written = new boolean[11];
        written[1] = true; // r1 = ctx (its value is not used as a number here)
        int pc = 0;
        for (int steps = 0; steps < 10_000; steps++) {
            if (pc < 0 || pc * 8 >= program.length) {
                fail("jumped out of the program to " + pc);
            }
            int op = code.get(pc * 8) & 0xff;
            int dst = code.get(pc * 8 + 1) & 0x0f;
            int src = (code.get(pc * 8 + 1) >> 4) & 0x0f;
            short off = code.getShort(pc * 8 + 2);
            int imm = code.getInt(pc * 8 + 4);
            pc++;
            switch (op) {
                case 0x61 -> { // ldxw dst = *(u32 *)(src + off), src must be the ctx
                    if (src != 1 || off < 0 || off > 8 || off % 4 != 0) {
                        fail("load from r" + src + "+" + off);
                    }
                    reg[dst] = Integer.toUnsignedLong(ctx.getInt(off));
                    written[dst] = true;
                }
                case 0x54 -> reg[dst] = Integer.toUnsignedLong((int) read(reg, written, dst) & imm); // w &= imm
                case 0x74 -> reg[dst] = Integer.toUnsignedLong((int) read(reg, written, dst) >>> imm); // w >>= imm
                case 0xb4 -> { // w = imm
                    reg[dst] = Integer.toUnsignedLong(imm);
                    written[dst] = true;
                }
                case 0xbc -> { // w = w(src)
                    reg[dst] = Integer.toUnsignedLong((int) read(reg, written, src));
                    written[dst] = true;
                }
                case 0x55 -> { // if dst != imm (sign-extended, 64-bit) goto
                    if (read(reg, written, dst) != (long) imm) {
                        pc += off;
                    }
                }
                case 0x5d -> { // if dst != src goto
                    if (read(reg, written, dst) != read(reg, written, src)) {
                        pc += off;
                    }
                }
                case 0x95 -> {
                    long r0 = read(reg, written, 0);
                    if (r0 != 0 && r0 != 1) {
                        fail("returned " + r0);
                    }
                    return r0 == 1;
                }
                default -> fail("unexpected opcode 0x" + Integer.toHexString(op) + " at " + (pc - 1));
            }
        }
        throw new AssertionError("no exit after 10000 steps");
    }

    private static long read(long[] reg, boolean[] written, int r) {
        if (!written[r]) {
            fail("r" + r + " read before written");
        }
        return reg[r];
    }

    private static boolean decide(List<LinuxDeviceCgroup> rules, char type, long major, long minor, int access)
            throws CgroupException {
        byte[] code = DeviceFilterProgram.encode(DeviceFilterProgram.of(rules).instructions(), ByteOrder.LITTLE_ENDIAN);
        return run(code, type == 'b' ? 1 : 2, major, minor, access);
    }

    private record Row(char type, long major, long minor, int access, boolean allowed) {}

    private static Row row(char type, long major, long minor, int access, boolean allowed) {
        return new Row(type, major, minor, access, allowed);
    }

    private static void check(List<LinuxDeviceCgroup> rules, Row... rows) throws CgroupException {
        List<String> wrong = new ArrayList<>();
        EffectiveDeviceRules effective = EffectiveDeviceRules.of(rules);
        for (Row r : rows) {
            boolean program = decide(rules, r.type(), r.major(), r.minor(), r.access());
            boolean direct = effective.allows(r.type(), r.major(), r.minor(), r.access());
            if (program != r.allowed() || direct != r.allowed()) {
                wrong.add(r + ": program " + program + ", direct " + direct);
            }
        }
        assertEquals(List.of(), wrong, "rules " + rules + " -> " + effective);
    }

    // ---- semantics ---------------------------------------------------------------------------------

    @Test
    void denyAllThenAllows() throws Exception {
        // what the runtime composes: the config's deny-all, then the default devices
        List<LinuxDeviceCgroup> rules = List.of(deny("a", null, null, "rwm"), allow("c", null, null, "m"),
                allow("b", null, null, "m"), allow("c", 1L, 3L, "rwm"), allow("c", 136L, null, "rwm"),
                allow("c", 10L, 200L, "rw"));
        check(rules,
                row('c', 1, 3, R, true), row('c', 1, 3, R | W, true), row('c', 1, 3, M, true),
                row('c', 1, 5, R, false), row('c', 1, 5, M, true),   // mknod of any char device
                row('b', 8, 0, M, true), row('b', 8, 0, R, false), row('b', 8, 0, R | M, false),
                row('c', 136, 0, R | W, true), row('c', 136, 99999, W, true), row('c', 137, 0, R, false),
                row('b', 136, 0, R, false),                          // type matters
                row('c', 10, 200, R | W, true), row('c', 10, 200, M, true), // m from c *:* m
                row('c', 10, 201, R, false),
                // access(F_OK) asks for no access: allowed where some exception names the device
                row('c', 1, 3, 0, true), row('c', 1, 5, 0, true), row('b', 9, 9, 0, true)); // c/b *:* m covers them
    }

    @Test
    void noRulesDenyAndAWildcardRuleResetsWhateverItsOtherFields() throws Exception {
        check(List.of(), row('c', 1, 3, R, false), row('b', 8, 0, M, false));
        // "a" with a major and partial access still means every device, every access (as v1 "a")
        check(List.of(allow("a", 1L, 3L, "r")), row('c', 5, 5, W, true), row('b', 8, 0, R | W | M, true));
        // a later "a" forgets everything before it
        check(List.of(allow("c", 1L, 3L, "rwm"), deny("a", null, null, "rwm")), row('c', 1, 3, R, false));
        check(List.of(allow(null, null, null, null)), row('c', 1, 3, R | W | M, true)); // absent type and access
    }

    @Test
    void allowAllThenDenies() throws Exception {
        List<LinuxDeviceCgroup> rules = List.of(allow("a", null, null, "rwm"), deny("c", 1L, 5L, "w"),
                deny("b", 8L, null, "rwm"));
        check(rules,
                row('c', 1, 5, R, true), row('c', 1, 5, W, false),
                // runc's program matches an exception only when it covers every access asked for, deny
                // exceptions included: an O_RDWR open (rw, not a subset of "w") passes. The v1 kernel
                // would deny it (any overlap with a deny exception); runc on v2 allows it, and so do we.
                row('c', 1, 5, R | W, true),
                // access(F_OK) asks for nothing, a subset of every exception: denied here
                row('c', 1, 5, 0, false), row('c', 1, 6, 0, true),
                row('c', 1, 3, W, true), row('b', 8, 1, R, false), row('b', 9, 1, R, true), row('c', 8, 1, R, true));
    }

    @Test
    void accessMustBeASubsetOfOneRule() throws Exception {
        // r and w on the same device merge into rw; on different wildcard levels they do not
        check(List.of(allow("c", 1L, 5L, "r"), allow("c", 1L, 5L, "w")), row('c', 1, 5, R | W, true));
        check(List.of(allow("c", 1L, null, "r"), allow("c", 1L, 5L, "w")),
                row('c', 1, 5, R, true), row('c', 1, 5, W, true), row('c', 1, 5, R | W, false));
    }

    @Test
    void aRuleEqualToTheDefaultRemovesOnlyItsExactException() throws Exception {
        // deny c 1:5 r after allow c 1:5 rw leaves w
        check(List.of(allow("c", 1L, 5L, "rw"), deny("c", 1L, 5L, "r")),
                row('c', 1, 5, W, true), row('c', 1, 5, R, false));
        // deny c 1:* does not touch the allow of c 1:5 (no such exception to remove): still allowed
        check(List.of(allow("c", 1L, 5L, "rwm"), deny("c", 1L, null, "rwm")), row('c', 1, 5, R, true));
        // runc's "weird" case: the deny before "a" is forgotten, the one after stays
        check(List.of(deny("b", 8L, 1L, "rwm"), allow("a", null, null, "rwm"), deny("b", 8L, 2L, "rwm")),
                row('b', 8, 1, R, true), row('b', 8, 2, R, false));
    }

    @Test
    void punchingAHoleInAWildcardIsRefusedNamingTheRule() {
        CgroupException e = assertThrows(CgroupException.class, () -> EffectiveDeviceRules.of(List.of(
                deny("a", null, null, "rwm"), allow("c", 1L, null, "rw"), deny("c", 1L, 5L, "w"))));
        assertEquals("device rule 2 (c 1:5 w, deny): it would punch a hole in the wildcard rule c 1:* rw (allow) "
                + "made by earlier rules; device rules cannot express that", e.getMessage());
        // no overlap in access: fine, and a no-op
        assertDoesNotThrow(List.of(deny("a", null, null, "rwm"), allow("c", 1L, null, "r"), deny("c", 1L, 5L, "w")));
        // the same in allow-all mode
        CgroupException blacklist = assertThrows(CgroupException.class, () -> EffectiveDeviceRules.of(List.of(
                allow("a", null, null, "rwm"), deny("b", null, null, "m"), allow("b", 8L, 0L, "rwm"))));
        assertEquals("device rule 2 (b 8:0 rwm, allow): it would punch a hole in the wildcard rule b *:* m (deny) "
                + "made by earlier rules; device rules cannot express that", blacklist.getMessage());
    }

    private static void assertDoesNotThrow(List<LinuxDeviceCgroup> rules) {
        try {
            EffectiveDeviceRules.of(rules);
        } catch (CgroupException e) {
            fail(e);
        }
    }

    @Test
    void invalidRulesNameTheirIndex() {
        assertEquals("device rule 1 (p 1:2 rwm, allow): invalid cgroup device type \"p\"",
                assertThrows(CgroupException.class, () -> DeviceFilterProgram.of(List.of(
                        allow("c", 1L, 3L, "rwm"), allow("p", 1L, 2L, "rwm")))).getMessage());
        assertEquals("device rule 0 (c 1:3 rwx, allow): unknown device access 'x' (only r, w and m)",
                assertThrows(CgroupException.class, () -> DeviceFilterProgram.of(List.of(
                        allow("c", 1L, 3L, "rwx")))).getMessage());
        assertEquals("device rule 0 (b 4294967296:0 r, deny): invalid major 4294967296 (more than 32 bits)",
                assertThrows(CgroupException.class, () -> DeviceFilterProgram.of(List.of(
                        deny("b", 4294967296L, 0L, "r")))).getMessage());
    }

    @Test
    void exceptionsAreOrderedAsRuncOrdersThem() throws Exception {
        EffectiveDeviceRules effective = EffectiveDeviceRules.of(List.of(deny("a", null, null, "rwm"),
                allow("c", 10L, 200L, "rwm"), allow("c", 136L, null, "rwm"), allow("c", 1L, 3L, "rwm"),
                allow("b", 1L, 3L, "r"), allow("c", null, null, "m"), allow("b", null, null, "m")));
        assertEquals("[b *:* m, c *:* m, b 1:3 r, c 1:3 rwm, c 10:200 rwm, c 136:* rwm]",
                effective.exceptions().toString());
    }

    /**
     * The program and the direct evaluation agree on random rule lists over a grid of devices and
     * every access combination (the encoding is checked against the model; the tables above check
     * the model).
     */
    @Test
    void programAgreesWithTheModelOnRandomRules() throws Exception {
        Random random = new Random(42);
        String[] types = {"a", "b", "c", "c", "c", "b"};
        Long[] numbers = {null, 0L, 1L, 5L, null};
        String[] accesses = {"r", "w", "m", "rw", "rm", "wm", "rwm"};
        int programs = 0;
        for (int round = 0; round < 400; round++) {
            List<LinuxDeviceCgroup> rules = new ArrayList<>();
            int n = random.nextInt(7);
            for (int i = 0; i < n; i++) {
                rules.add(new LinuxDeviceCgroup(random.nextBoolean(), types[random.nextInt(types.length)],
                        numbers[random.nextInt(numbers.length)], numbers[random.nextInt(numbers.length)],
                        accesses[random.nextInt(accesses.length)]));
            }
            EffectiveDeviceRules effective;
            try {
                effective = EffectiveDeviceRules.of(rules);
            } catch (CgroupException holePunch) {
                continue;
            }
            programs++;
            byte[] code = DeviceFilterProgram.encode(DeviceFilterProgram.of(effective).instructions(),
                    ByteOrder.LITTLE_ENDIAN);
            for (char type : new char[] {'b', 'c'}) {
                for (long major : new long[] {0, 1, 5, 7}) {
                    for (long minor : new long[] {0, 1, 5, 7}) {
                        for (int access = 1; access <= 7; access++) {
                            assertEquals(effective.allows(type, major, minor, access),
                                    run(code, type == 'b' ? 1 : 2, major, minor, access),
                                    rules + " " + type + " " + major + ":" + minor + " access " + access);
                        }
                    }
                }
            }
        }
        assertEquals(true, programs > 300, programs + " programs");
    }
}
