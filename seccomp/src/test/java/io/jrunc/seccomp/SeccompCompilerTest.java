package io.jrunc.seccomp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrunc.seccomp.profiles.Profiles;
import io.jrunc.spec.LinuxSeccomp;
import io.jrunc.spec.LinuxSeccompArg;
import io.jrunc.spec.LinuxSyscall;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Focused cases of {@link SeccompCompiler}: the errors (with their JSON paths) and decisions that show
 * how runc 1.1.5 and libseccomp 2.5.4 combine rules. The oracle test (oracle.OracleTest) compares every
 * decision with libseccomp's own program; the expectations here were checked against it too.
 */
class SeccompCompilerTest {
    static final int ALLOW = 0x7fff0000, KILL_THREAD = 0, KILL_PROCESS = 0x80000000, LOG = 0x7ffc0000,
            ENOSYS = 0x00050000 | 38;
    static final int X32 = Arch.X32_SYSCALL_BIT;
    // x86-64 numbers
    static final int READ = 0, WRITE = 1, PERSONALITY = 135, SET_TID_ADDRESS = 218, SOCKET = 41;

    static int errno(int e) {
        return 0x00050000 | e;
    }

    static LinuxSyscall rule(String action, Integer errnoRet, List<LinuxSeccompArg> args, String... names) {
        return new LinuxSyscall(List.of(names), action, errnoRet, args);
    }

    static LinuxSeccompArg arg(int index, String op, long value) {
        return new LinuxSeccompArg(index, value, null, op);
    }

    static LinuxSeccomp profile(String defaultAction, List<String> arches, LinuxSyscall... rules) {
        return new LinuxSeccomp(defaultAction, null, arches, List.of(), null, null, List.of(rules));
    }

    static int decide(CompiledFilter filter, Arch arch, int nr, long... args) {
        return FilterEvaluator.evaluate(filter.program(), SeccompData.of(arch, nr, args));
    }

    static CompiledFilter compile(LinuxSeccomp p) {
        return SeccompCompiler.compile(p, Arch.X86_64);
    }

    // ---- errors ----

    @Test
    void anArchitectureWithoutATableIsRefusedWithItsPath() {
        LinuxSeccomp p = profile("SCMP_ACT_ERRNO", List.of("SCMP_ARCH_X86", "SCMP_ARCH_MIPS"),
                rule("SCMP_ACT_ALLOW", null, List.of(), "read"));
        SeccompException e = assertThrows(SeccompException.class, () -> compile(p));
        assertEquals("linux.seccomp.architectures[1]: SCMP_ARCH_MIPS is not supported by jrunc", e.getMessage());
    }

    @Test
    void twoActionsOnTheSameConditionAreLibseccompsEexist() {
        LinuxSeccomp p = profile("SCMP_ACT_ERRNO", List.of(),
                rule("SCMP_ACT_ALLOW", null, List.of(arg(0, "SCMP_CMP_EQ", 1)), "read"),
                rule("SCMP_ACT_LOG", null, List.of(arg(0, "SCMP_CMP_EQ", 1)), "write", "read"));
        SeccompException e = assertThrows(SeccompException.class, () -> compile(p));
        assertTrue(e.getMessage().startsWith("linux.seccomp.syscalls[1]: error adding seccomp rule for syscall read:"
                + " file exists"), e.getMessage());
    }

    @Test
    void notifyOnWriteIsRefusedAsRuncDoes() {
        LinuxSeccomp p = profile("SCMP_ACT_ERRNO", List.of(),
                rule("SCMP_ACT_NOTIFY", null, List.of(), "read", "write"));
        SeccompException e = assertThrows(SeccompException.class, () -> compile(p));
        assertEquals("linux.seccomp.syscalls[0].names[1]: SCMP_ACT_NOTIFY cannot be used for the write syscall",
                e.getMessage());
    }

    @Test
    void errnoValuesLibseccompRefuses() {
        LinuxSeccomp rule = profile("SCMP_ACT_ALLOW", List.of(),
                rule("SCMP_ACT_ERRNO", 4095, List.of(), "read"));
        assertTrue(assertThrows(SeccompException.class, () -> compile(rule)).getMessage()
                .startsWith("linux.seccomp.syscalls[0].errnoRet: "));
        LinuxSeccomp def = new LinuxSeccomp("SCMP_ACT_ERRNO", 5000, List.of(), List.of(), null, null, List.of());
        assertTrue(assertThrows(SeccompException.class, () -> compile(def)).getMessage()
                .startsWith("linux.seccomp.defaultErrnoRet: "));
        // A rule on a name libseccomp does not know is skipped before its action is checked, as runc does.
        compile(profile("SCMP_ACT_ALLOW", List.of(), rule("SCMP_ACT_ERRNO", 4095, List.of(), "no_such_call")));
    }

    // ---- decisions ----

    @Test
    void architecturesAndTheEnosysStub() {
        CompiledFilter f = compile(profile("SCMP_ACT_ERRNO", List.of("SCMP_ARCH_X86_64", "SCMP_ARCH_X32"),
                rule("SCMP_ACT_ALLOW", null, List.of(), "read", "personality")));
        assertEquals(ALLOW, decide(f, Arch.X86_64, READ));
        assertEquals(errno(1), decide(f, Arch.X86_64, WRITE));
        assertEquals(ALLOW, decide(f, Arch.X86_64, PERSONALITY));
        assertEquals(ENOSYS, decide(f, Arch.X86_64, PERSONALITY + 1), "above the highest number named");
        assertEquals(ALLOW, decide(f, Arch.X86_64, X32 | READ), "x32 numbers carry bit 30");
        assertEquals(ENOSYS, decide(f, Arch.X86_64, X32 | (PERSONALITY + 1)));
        assertEquals(KILL_THREAD, decide(f, Arch.X86, 3), "x86 is not in the filter: bad-arch action");
        assertEquals(KILL_THREAD, decide(f, Arch.AARCH64, 63));

        CompiledFilter x8664Only = compile(profile("SCMP_ACT_ERRNO", List.of(),
                rule("SCMP_ACT_ALLOW", null, List.of(), "read", "personality")));
        assertEquals(errno(1), decide(x8664Only, Arch.X86_64, PERSONALITY + 1), "no stub: x86-64 is not listed");
        assertEquals(KILL_THREAD, decide(x8664Only, Arch.X86_64, X32 | READ), "x32 is not in the filter");
        assertEquals(errno(1), decide(x8664Only, Arch.X86_64, -1), "-1 (a tracer's skip) is not x32");

        CompiledFilter allowDefault = compile(profile("SCMP_ACT_ALLOW", List.of("SCMP_ARCH_X86_64"),
                rule("SCMP_ACT_ERRNO", null, List.of(), "read")));
        assertEquals(ALLOW, decide(allowDefault, Arch.X86_64, 1000), "no stub under an ALLOW default");
    }

    @Test
    void theFirstUnconditionalRuleWinsAndReplacesConditionalOnes() {
        CompiledFilter f = compile(profile("SCMP_ACT_KILL_PROCESS", List.of(),
                rule("SCMP_ACT_ERRNO", 5, List.of(arg(0, "SCMP_CMP_EQ", 1)), "read"),
                rule("SCMP_ACT_ALLOW", null, List.of(), "read"),
                rule("SCMP_ACT_ERRNO", 6, List.of(), "read"),
                rule("SCMP_ACT_ERRNO", 7, List.of(arg(0, "SCMP_CMP_EQ", 2)), "read")));
        assertEquals(ALLOW, decide(f, Arch.X86_64, READ, 1));
        assertEquals(ALLOW, decide(f, Arch.X86_64, READ, 2));
    }

    @Test
    void repeatedArgumentIndexesBecomeSeparateRules() {
        // a0 == 1 || a0 == 2, as runc splits them, where the spec would AND them.
        CompiledFilter f = compile(profile("SCMP_ACT_ERRNO", List.of(),
                rule("SCMP_ACT_ALLOW", null, List.of(arg(0, "SCMP_CMP_EQ", 1), arg(0, "SCMP_CMP_EQ", 2)),
                        "personality")));
        assertEquals(ALLOW, decide(f, Arch.X86_64, PERSONALITY, 1));
        assertEquals(ALLOW, decide(f, Arch.X86_64, PERSONALITY, 2));
        assertEquals(errno(1), decide(f, Arch.X86_64, PERSONALITY, 3));
        assertEquals(errno(1), decide(f, Arch.X86_64, PERSONALITY, 0x1_00000001L), "64-bit compare on x86-64");
    }

    @Test
    void x86ComparesTheLowWordAndMultiplexesSocketCalls() {
        CompiledFilter f = compile(profile("SCMP_ACT_ERRNO", List.of("SCMP_ARCH_X86"),
                rule("SCMP_ACT_ALLOW", null, List.of(arg(0, "SCMP_CMP_EQ", 0x1_00000002L)), "socket"),
                rule("SCMP_ACT_ERRNO", 9, List.of(), "futex_waitv")));
        assertEquals(ALLOW, decide(f, Arch.X86, 359, 2), "x86: the datum's high word is dropped");
        assertEquals(errno(1), decide(f, Arch.X86, 359, 3));
        // socketcall(SYS_SOCKET, args): the rule's own condition on argument 0 is replaced by the call number.
        assertEquals(ALLOW, decide(f, Arch.X86, 102, 1, 0xdead));
        assertEquals(errno(1), decide(f, Arch.X86, 102, 2));
        assertEquals(errno(9), decide(f, Arch.X86, 449));
        assertEquals(ENOSYS, decide(f, Arch.X86, 450));
        assertEquals(errno(1), decide(f, Arch.X86_64, SOCKET, 2), "x86-64 compares all 64 bits");
        assertEquals(ALLOW, decide(f, Arch.X86_64, SOCKET, 0x1_00000002L));

        // runc's stub takes x86's socket calls for pseudo numbers: read (3) is the highest here.
        CompiledFilter low = compile(profile("SCMP_ACT_ERRNO", List.of("SCMP_ARCH_X86"),
                rule("SCMP_ACT_ALLOW", null, List.of(), "socket", "read")));
        assertEquals(ALLOW, decide(low, Arch.X86, 3));
        assertEquals(ENOSYS, decide(low, Arch.X86, 359));
        assertEquals(ENOSYS, decide(low, Arch.X86, 102, 1));
    }

    @Test
    void libseccompsReusedAccumulatorIsKept() {
        // Two LE rules on a0: the second one's high-word test reuses the accumulator, which still holds the
        // low word when the first rule's low-word test falls through; libseccomp then gives the default.
        CompiledFilter f = compile(profile("SCMP_ACT_KILL_PROCESS", List.of(),
                rule("SCMP_ACT_KILL_THREAD", null, List.of(arg(0, "SCMP_CMP_LE", 0x1_00000000L),
                        arg(0, "SCMP_CMP_LE", 0xD_16322064L)), "set_tid_address")));
        assertEquals(KILL_PROCESS, decide(f, Arch.X86_64, SET_TID_ADDRESS, 0x1_16322064L));
        assertEquals(KILL_THREAD, decide(f, Arch.X86_64, SET_TID_ADDRESS, 0x2_00000000L));
        assertEquals(KILL_THREAD, decide(f, Arch.X86_64, SET_TID_ADDRESS, 5));
    }

    @Test
    void aPseudoSyscallFirstByPriorityLeavesTheNumberUnloaded() {
        // x86-64 and x32 share one section; its first syscall block by priority is socketcall's, a pseudo
        // syscall on both, so libseccomp skips it and no block loads the number: everything is the default.
        CompiledFilter f = compile(profile("SCMP_ACT_LOG", List.of("SCMP_ARCH_X86_64", "SCMP_ARCH_X32"),
                rule("SCMP_ACT_ALLOW", null, List.of(), "socketcall"),
                rule("SCMP_ACT_ALLOW", null, List.of(arg(0, "SCMP_CMP_EQ", 1)), "read")));
        assertEquals(LOG, decide(f, Arch.X86_64, READ, 1));
        assertEquals(LOG, decide(f, Arch.X86_64, X32 | READ, 1));
    }

    @Test
    void flags() {
        LinuxSeccomp p = new LinuxSeccomp("SCMP_ACT_ERRNO", null, List.of(),
                List.of("SECCOMP_FILTER_FLAG_TSYNC", "SECCOMP_FILTER_FLAG_LOG", "SECCOMP_FILTER_FLAG_SPEC_ALLOW"),
                "/run/agent.sock", null, List.of(rule("SCMP_ACT_NOTIFY", null, List.of(), "openat")));
        CompiledFilter f = compile(p);
        assertEquals(CompiledFilter.FLAG_LOG | CompiledFilter.FLAG_SPEC_ALLOW | CompiledFilter.FLAG_NEW_LISTENER,
                f.flags());
        assertTrue(f.usesNotify());
        assertFalse(compile(profile("SCMP_ACT_ERRNO", List.of(), rule("SCMP_ACT_ALLOW", null, List.of(), "read")))
                .usesNotify());
    }

    @Test
    void podmansProfileIsCompact() {
        CompiledFilter f = compile(Profiles.podmanDefault());
        assertTrue(f.program().size() < 1024, "instructions: " + f.program().size());
    }
}
