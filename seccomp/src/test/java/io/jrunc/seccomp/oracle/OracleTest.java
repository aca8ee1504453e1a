package io.jrunc.seccomp.oracle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.jrunc.seccomp.Arch;
import io.jrunc.seccomp.CompiledFilter;
import io.jrunc.seccomp.FilterEvaluator;
import io.jrunc.seccomp.Program;
import io.jrunc.seccomp.SeccompCompiler;
import io.jrunc.seccomp.SeccompData;
import io.jrunc.seccomp.SeccompException;
import io.jrunc.seccomp.profiles.DockerProfile;
import io.jrunc.seccomp.profiles.Profiles;
import io.jrunc.spec.Json;
import io.jrunc.spec.LinuxSeccomp;
import io.jrunc.spec.LinuxSeccompArg;
import io.jrunc.spec.LinuxSyscall;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * The compiler held to runc 1.1.5: for each profile, every decision of {@code SeccompCompiler.compile} must
 * equal that of the filter runc loads (libseccomp 2.5.4's program, built as runc builds it by
 * {@link Libseccomp}, behind runc's -ENOSYS stub, {@link RuncEnosysStub}), as full 32-bit return values.
 * Programs run through {@link TestBpfInterpreter}, and through the product's {@link FilterEvaluator} too,
 * which must agree with it on both programs.
 *
 * <p>The syscalls tried, per profile: every number from 0 to 64 past the highest libseccomp knows, on
 * x86-64, x86 and x32 (x32's with bit 30), whether or not the profile lists the architecture; a few
 * numbers on an architecture no filter has (AArch64); out-of-range numbers; and for every syscall some
 * rule puts conditions on (and x86's socketcall and ipc multiplexers), argument vectors built from values
 * around every constant the conditions name (on x86 with the high halves 0, as the kernel fills
 * seccomp_data for a 32-bit task). Where libseccomp refuses the profile (runc would fail to
 * start the container), the compiler must throw SeccompException, and the other way round.
 *
 * <p>The other native architectures jrunc claims, AArch64 and ARM, are checked from this x86-64 host
 * ({@code compile(profile, Arch.AARCH64)} or {@code Arch.ARM} against the filter runc on such a host builds:
 * {@link Libseccomp#build(LinuxSeccomp, Arch)} swaps the native architecture out and lets libseccomp's
 * name-based translation of rule numbers stand in for the host's numbering): the fixtures (with moby's
 * profile as docker converts it on arm64 and arm) and random profiles whose architectures are drawn from
 * AArch64 and ARM and names from their tables, x86-64's alone and ARM's private calls. There every number
 * of AArch64 and ARM (and of any other listed architecture) is tried, ARM's from 0x0f0000 too, and ARM's
 * arguments have their high halves 0.
 *
 * <p>The random profiles come from a fixed seed ({@code -Doracle.seed=N} to change it,
 * {@code -Doracle.profiles=N} for how many, 0 to skip them); a failure prints a summary of the differing
 * decisions by kind, then for the first few profiles the seed, the profile's index and JSON, the first
 * differing seccomp_data, both return values and libseccomp's PFC. {@code -Doracle.only=N} runs one random
 * profile, {@code -Doracle.verbose=true} prints every differing decision.
 */
class OracleTest {
    private static final long DEFAULT_SEED = 0x5eccedL;
    private static final long SEED = Long.getLong("oracle.seed", DEFAULT_SEED);
    private static final int RANDOM_PROFILES = Integer.getInteger("oracle.profiles", 300);
    /** {@code -Doracle.verbose=true}: every differing decision on standard output, one a line. */
    private static final boolean VERBOSE = Boolean.getBoolean("oracle.verbose");
    /** {@code -Doracle.only=N}: only random profile N (the others are still drawn, to keep the sequence). */
    private static final int ONLY = Integer.getInteger("oracle.only", -1);

    private static final int AUDIT_X86_64 = Arch.X86_64.auditArch(), AUDIT_X86 = Arch.X86.auditArch(),
            AUDIT_AARCH64 = Arch.AARCH64.auditArch(), AUDIT_ARM = Arch.ARM.auditArch();
    private static final int X32_BIT = 0x40000000;
    private static final int X86_SOCKETCALL = 102, X86_IPC = 117;

    private static final List<String> SOCKET_FAMILY = List.of("socket", "bind", "connect", "listen", "accept",
            "getsockname", "getpeername", "socketpair", "send", "recv", "sendto", "recvfrom", "shutdown",
            "setsockopt", "getsockopt", "sendmsg", "recvmsg", "accept4", "recvmmsg", "sendmmsg");
    private static final List<String> IPC_FAMILY = List.of("semop", "semget", "semctl", "semtimedop", "msgsnd",
            "msgrcv", "msgget", "msgctl", "shmat", "shmdt", "shmget", "shmctl");

    /** libseccomp's own tables (name to number), read through seccomp_syscall_resolve_num_arch. */
    private static final Map<String, Integer> X86_64_NAMES = table("SCMP_ARCH_X86_64", 0);
    private static final Map<String, Integer> X86_NAMES = table("SCMP_ARCH_X86", 0);
    private static final Map<String, Integer> X32_NAMES = table("SCMP_ARCH_X32", X32_BIT);
    private static final Map<String, Integer> AARCH64_NAMES = table("SCMP_ARCH_AARCH64", 0);
    /** ARM's, with its private calls (__ARM_NR_BASE 0x0f0000: breakpoint, cacheflush, usr26, usr32, set_tls). */
    private static final int ARM_PRIVATE = 0x0f0000;
    private static final Map<String, Integer> ARM_NAMES = table("SCMP_ARCH_ARM", 0, ARM_PRIVATE);

    private static Map<String, Integer> table(String arch, int... bases) {
        Map<String, Integer> names = new LinkedHashMap<>();
        for (int base : bases) {
            for (int nr = base; nr < base + 1024; nr++) {
                List<String> one = Libseccomp.names(arch, nr, nr);
                if (!one.isEmpty()) {
                    names.putIfAbsent(one.getFirst(), nr);
                }
            }
        }
        return names;
    }

    /** libseccomp's table for an architecture of the filter (x32's numbers with bit 30). */
    private static Map<String, Integer> names(Arch arch) {
        return switch (arch) {
            case X86_64 -> X86_64_NAMES;
            case X86 -> X86_NAMES;
            case X32 -> X32_NAMES;
            case AARCH64 -> AARCH64_NAMES;
            case ARM -> ARM_NAMES;
        };
    }

    private static int highest(Map<String, Integer> table) {
        return table.values().stream().mapToInt(Integer::intValue).max().orElseThrow();
    }

    /** The highest number below {@code limit} (ARM's table without its private calls). */
    private static int highestBelow(Map<String, Integer> table, int limit) {
        return table.values().stream().mapToInt(Integer::intValue).filter(n -> n < limit).max().orElseThrow();
    }

    // ---------------------------------------------------------------------------------------------------
    // The harness, checked on its own against decisions worked out by hand.

    private static LinuxSyscall rule(String action, Integer errnoRet, List<LinuxSeccompArg> args, String... names) {
        return new LinuxSyscall(List.of(names), action, errnoRet, args);
    }

    private static LinuxSeccompArg arg(int index, String op, long value, Long valueTwo) {
        return new LinuxSeccompArg(index, value, valueTwo, op);
    }

    private static LinuxSeccomp profile(String defaultAction, Integer defaultErrnoRet, List<String> arches,
            LinuxSyscall... rules) {
        return new LinuxSeccomp(defaultAction, defaultErrnoRet, arches, List.of(), null, null, List.of(rules));
    }

    /** A small profile of podman's shape: ERRNO default, x86-64 only, a masked condition. */
    static LinuxSeccomp smallX8664() {
        return profile("SCMP_ACT_ERRNO", null, List.of("SCMP_ARCH_X86_64"),
                rule("SCMP_ACT_ALLOW", null, List.of(), "read", "write", "no_such_syscall"),
                rule("SCMP_ACT_ERRNO", 13, List.of(arg(2, "SCMP_CMP_MASKED_EQ", 3, 1L)), "openat"),
                rule("SCMP_ACT_ERRNO", null, List.of(), "getpid")); // the default's action: skipped
    }

    /** Native x86-64 unlisted, x86 and x32 listed, a socket rule (multiplexed on x86), KILL_PROCESS default. */
    static LinuxSeccomp smallMultiArch() {
        return profile("SCMP_ACT_KILL_PROCESS", null, List.of("SCMP_ARCH_X86", "SCMP_ARCH_X32"),
                rule("SCMP_ACT_ERRNO", null, List.of(arg(0, "SCMP_CMP_EQ", 2, null)), "socket"),
                rule("SCMP_ACT_ALLOW", null, List.of(), "read"));
    }

    /** AArch64 listed: open is a pseudo syscall there, so it adds nothing on aarch64 but open(5) on arm. */
    static LinuxSeccomp smallAarch64() {
        return profile("SCMP_ACT_ERRNO", null, List.of("SCMP_ARCH_AARCH64"),
                rule("SCMP_ACT_ALLOW", null, List.of(), "read", "write", "open"),
                rule("SCMP_ACT_ERRNO", 13, List.of(arg(2, "SCMP_CMP_MASKED_EQ", 3, 1L)), "openat"));
    }

    /** ARM listed: a private call (cacheflush, 0xf0002) raises the stub's maximum; socket is direct (281). */
    static LinuxSeccomp smallArm() {
        return profile("SCMP_ACT_KILL_PROCESS", null, List.of("SCMP_ARCH_ARM"),
                rule("SCMP_ACT_ALLOW", null, List.of(), "read", "cacheflush"),
                rule("SCMP_ACT_ERRNO", null, List.of(arg(0, "SCMP_CMP_EQ", 2, null)), "socket"),
                rule("SCMP_ACT_ERRNO", 2, List.of(), "open"));
    }

    /** runc's whole decision for a profile, from libseccomp and the stub alone. */
    private static int runc(LinuxSeccomp profile, SeccompData data) {
        return runc(profile, Arch.X86_64, data);
    }

    /** runc's whole decision for a profile on a {@code host} host. */
    private static int runc(LinuxSeccomp profile, Arch host, SeccompData data) {
        Libseccomp.Result result = Libseccomp.build(profile, host);
        assertTrue(!result.refused(), result.refusal());
        return new RuncEnosysStub(profile).decide(data, new TestBpfInterpreter(result.program()).run(data));
    }

    private static final int ALLOW = 0x7fff0000, KILL_THREAD = 0, KILL_PROCESS = 0x80000000, ENOSYS = 0x50026;

    private static int errno(int e) {
        return 0x50000 | e;
    }

    @Test
    void harnessOnAnX8664Profile() {
        LinuxSeccomp p = smallX8664();
        assertEquals(ALLOW, runc(p, SeccompData.of(Arch.X86_64, 0)));
        assertEquals(ALLOW, runc(p, SeccompData.of(Arch.X86_64, 1)));
        assertEquals(errno(13), runc(p, SeccompData.of(Arch.X86_64, 257, 0, 0, 1)));
        assertEquals(errno(13), runc(p, SeccompData.of(Arch.X86_64, 257, 0, 0, 5)));
        assertEquals(errno(13), runc(p, SeccompData.of(Arch.X86_64, 257, 0, 0, 0xffffffff00000001L)));
        assertEquals(errno(1), runc(p, SeccompData.of(Arch.X86_64, 257, 0, 0, 2)));
        assertEquals(errno(1), runc(p, SeccompData.of(Arch.X86_64, 39)), "getpid gets the default");
        assertEquals(errno(1), runc(p, SeccompData.of(Arch.X86_64, 257)), "highest named: the filter decides");
        assertEquals(ENOSYS, runc(p, SeccompData.of(Arch.X86_64, 258)), "above the highest named: -ENOSYS");
        assertEquals(ENOSYS, runc(p, SeccompData.of(Arch.X86_64, 0x3fffffff)));
        assertEquals(KILL_THREAD, runc(p, SeccompData.of(Arch.X86, 3)), "x86 is not in the filter");
        assertEquals(KILL_THREAD, runc(p, SeccompData.of(Arch.X86_64, X32_BIT)), "nor is x32");
        assertEquals(KILL_THREAD, runc(p, SeccompData.of(Arch.AARCH64, 63)));
        String pfc = Libseccomp.pfc(p);
        assertTrue(pfc.contains("openat"), pfc);
    }

    @Test
    void harnessOnAMultiArchitectureProfile() {
        LinuxSeccomp p = smallMultiArch();
        // x86: socket's rule is on socketcall(SYS_SOCKET) and on the direct socket(2) (359), but the stub
        // counts only read (3): socket resolves to a pseudo-number there.
        assertEquals(ALLOW, runc(p, SeccompData.of(Arch.X86, 3)));
        assertEquals(KILL_PROCESS, runc(p, SeccompData.of(Arch.X86, 2)));
        assertEquals(ENOSYS, runc(p, SeccompData.of(Arch.X86, X86_SOCKETCALL, 1)));
        assertEquals(ENOSYS, runc(p, SeccompData.of(Arch.X86, 359, 2)));
        // x32: socket is 41 | bit 30, the highest named there.
        assertEquals(ALLOW, runc(p, SeccompData.of(Arch.X86_64, X32_BIT)));
        assertEquals(errno(1), runc(p, SeccompData.of(Arch.X86_64, X32_BIT | 41, 2)));
        assertEquals(KILL_PROCESS, runc(p, SeccompData.of(Arch.X86_64, X32_BIT | 41, 3)));
        assertEquals(ENOSYS, runc(p, SeccompData.of(Arch.X86_64, X32_BIT | 42)));
        // Native x86-64 is in the filter but not listed: rules apply, no stub.
        assertEquals(errno(1), runc(p, SeccompData.of(Arch.X86_64, 41, 2)));
        assertEquals(ALLOW, runc(p, SeccompData.of(Arch.X86_64, 0)));
        assertEquals(KILL_PROCESS, runc(p, SeccompData.of(Arch.X86_64, 1000)));
    }

    @Test
    void harnessOnOtherHosts() {
        assertEquals(List.of(), Libseccomp.x8664RoundTripFailures(allNames()), "x86-64's numbering cannot carry them");
        LinuxSeccomp a = smallAarch64();
        Arch aarch64 = Arch.AARCH64, arm = Arch.ARM;
        assertEquals(ALLOW, runc(a, aarch64, SeccompData.of(aarch64, 63)));
        assertEquals(ALLOW, runc(a, aarch64, SeccompData.of(aarch64, 64)));
        assertEquals(errno(13), runc(a, aarch64, SeccompData.of(aarch64, 56, 0, 0, 1)));
        assertEquals(errno(1), runc(a, aarch64, SeccompData.of(aarch64, 56, 0, 0, 2)));
        assertEquals(errno(1), runc(a, aarch64, SeccompData.of(aarch64, 57)), "close gets the default");
        assertEquals(ENOSYS, runc(a, aarch64, SeccompData.of(aarch64, 65)), "above write (64): -ENOSYS");
        assertEquals(KILL_THREAD, runc(a, aarch64, SeccompData.of(arm, 3)), "arm is not in the filter");
        assertEquals(KILL_THREAD, runc(a, aarch64, SeccompData.of(Arch.X86_64, 0)), "nor is x86-64");
        // The same profile on an arm host: arm is native (no stub, not listed), open is arm's 5.
        assertEquals(ALLOW, runc(a, arm, SeccompData.of(arm, 3)));
        assertEquals(ALLOW, runc(a, arm, SeccompData.of(arm, 5)));
        assertEquals(errno(1), runc(a, arm, SeccompData.of(arm, 1000)));
        assertEquals(ENOSYS, runc(a, arm, SeccompData.of(aarch64, 65)));
        assertEquals(ALLOW, runc(a, arm, SeccompData.of(aarch64, 63)));

        LinuxSeccomp b = smallArm();
        assertEquals(ALLOW, runc(b, aarch64, SeccompData.of(aarch64, 63)));
        assertEquals(errno(1), runc(b, aarch64, SeccompData.of(aarch64, 198, 2)));
        assertEquals(KILL_PROCESS, runc(b, aarch64, SeccompData.of(aarch64, 198, 3)));
        assertEquals(KILL_PROCESS, runc(b, aarch64, SeccompData.of(aarch64, 1000)), "aarch64 not listed: no stub");
        assertEquals(ALLOW, runc(b, aarch64, SeccompData.of(arm, 3)));
        assertEquals(ALLOW, runc(b, aarch64, SeccompData.of(arm, 0xf0002)), "cacheflush, pseudo on aarch64");
        assertEquals(ENOSYS, runc(b, aarch64, SeccompData.of(arm, 0xf0003)));
        assertEquals(KILL_PROCESS, runc(b, aarch64, SeccompData.of(arm, 1000)), "below cacheflush: the filter");
        assertEquals(errno(2), runc(b, aarch64, SeccompData.of(arm, 5)), "open, pseudo on aarch64");
        assertEquals(errno(1), runc(b, aarch64, SeccompData.of(arm, 281, 2)));
        assertEquals(KILL_THREAD, runc(b, aarch64, SeccompData.of(Arch.X86_64, 0)));
        String pfc = Libseccomp.pfc(b, aarch64);
        assertTrue(pfc.contains("aarch64") && pfc.contains("arm") && !pfc.contains("x86"), pfc);
    }

    /** Every name libseccomp's tables of the five architectures have. */
    private static Set<String> allNames() {
        Set<String> all = new TreeSet<>();
        for (Arch arch : Arch.values()) {
            all.addAll(names(arch).keySet());
        }
        return all;
    }

    @Test
    void harnessOnTheStubsSkipsAndRefusals() {
        LinuxSeccomp allow = profile("SCMP_ACT_ALLOW", null, List.of("SCMP_ARCH_X86_64"),
                rule("SCMP_ACT_ERRNO", null, List.of(), "read"), rule("SCMP_ACT_ERRNO", null, List.of(), "write"));
        assertEquals(ALLOW, runc(allow, SeccompData.of(Arch.X86_64, 1000)), "no stub under ALLOW");
        assertEquals(errno(1), runc(allow, SeccompData.of(Arch.X86_64, 1)));
        LinuxSeccomp enosysNumber = profile("SCMP_ACT_KILL", 0x50026, List.of("SCMP_ARCH_X86_64"),
                rule("SCMP_ACT_ALLOW", null, List.of(), "write"));
        assertEquals(KILL_THREAD, runc(enosysNumber, SeccompData.of(Arch.X86_64, 1000)), "runc's errno check");
        LinuxSeccomp enosys38 = profile("SCMP_ACT_KILL", 38, List.of("SCMP_ARCH_X86_64"),
                rule("SCMP_ACT_ALLOW", null, List.of(), "write"));
        assertEquals(ENOSYS, runc(enosys38, SeccompData.of(Arch.X86_64, 1000)));
        LinuxSeccomp onlyRead = profile("SCMP_ACT_KILL", null, List.of("SCMP_ARCH_X86_64"),
                rule("SCMP_ACT_ALLOW", null, List.of(), "read"));
        assertEquals(KILL_THREAD, runc(onlyRead, SeccompData.of(Arch.X86_64, 1000)), "highest 0: no stub");
        assertTrue(Libseccomp.build(profile("SCMP_ACT_NOTIFY", null, List.of(),
                rule("SCMP_ACT_ALLOW", null, List.of(), "read"))).refused());
        assertTrue(Libseccomp.build(profile("SCMP_ACT_ALLOW", null, List.of(),
                rule("SCMP_ACT_NOTIFY", null, List.of(), "write"))).refused());
        assertTrue(Libseccomp.build(profile("SCMP_ACT_ERRNO", 4096, List.of(),
                rule("SCMP_ACT_ALLOW", null, List.of(), "read"))).refused(), "errno past MAX_ERRNO");
    }

    // ---------------------------------------------------------------------------------------------------
    // The comparison.

    /** Counts over a run, for the report. */
    private static final class Tally {
        int profiles, refusedByRunc, refusedByBoth, compared, decisions, compiledDecisions;
        int mismatchedProfiles, mismatchedDecisions, archCompared;
        /** Why runc refused, by kind (the reason without its syscall and numbers). */
        final Map<String, Integer> refusals = new java.util.TreeMap<>();
        /** Mismatched decisions by kind (which syscalls, who decided), for the summary. */
        final Map<String, Integer> kinds = new java.util.TreeMap<>();
        /** The first mismatch of the first few profiles, in full. */
        final List<String> details = new ArrayList<>();

        void profileMismatch(String text) {
            mismatchedProfiles++;
            if (details.size() < 6) {
                details.add(text);
            }
        }
    }

    /** jrunc's filter for a profile, or its refusal (what runc's failure to start the container is to runc). */
    private record Ours(CompiledFilter filter, SeccompException refusal) {}

    private static Ours compileOurs(LinuxSeccomp profile, Arch host) {
        try {
            return new Ours(SeccompCompiler.compile(profile, host), null);
        } catch (SeccompException e) {
            return new Ours(null, e);
        }
    }

    private static String kindOfRefusal(String why) {
        return why.replaceAll("^syscalls\\[\\d+\\] \\S+: ", "").replaceAll("\\(.*\\)", "(...)")
                .replaceAll("0x[0-9a-f]+|\\d+", "N");
    }

    /** What a mismatched decision was about: which range of numbers, with arguments or not, who decided. */
    private static String kindOfDecision(SeccompData data, boolean stub, int expected, int actual) {
        String arch = data.arch() == AUDIT_X86_64 ? ((data.nr() & X32_BIT) != 0 ? "x32" : "x86_64")
                : data.arch() == AUDIT_X86 ? "x86" : data.arch() == AUDIT_AARCH64 ? "aarch64"
                : data.arch() == AUDIT_ARM ? "arm" : "other arch";
        boolean args = false;
        for (long a : data.args()) {
            args |= a != 0;
        }
        return arch + (args ? " with arguments" : "") + ", runc's " + (stub ? "stub" : "libseccomp") + " says "
                + action(expected) + ", jrunc " + action(actual);
    }

    private static String action(int ret) {
        return switch (ret & 0xffff0000) {
            case 0x80000000 -> "KILL_PROCESS";
            case 0 -> "KILL_THREAD";
            case 0x00030000 -> "TRAP";
            case 0x00050000 -> ret == 0x50026 ? "ERRNO(ENOSYS)" : "ERRNO";
            case 0x7fc00000 -> "NOTIFY";
            case 0x7ff00000 -> "TRACE";
            case 0x7ffc0000 -> "LOG";
            case 0x7fff0000 -> "ALLOW";
            default -> hex(ret);
        };
    }

    /** Compares one profile on this (x86-64) host. */
    private static void compare(String label, LinuxSeccomp profile, Tally tally) {
        compare(label, profile, Arch.X86_64, tally);
    }

    /** Compares one profile as runc on a {@code host} host builds it. */
    private static void compare(String label, LinuxSeccomp profile, Arch host, Tally tally) {
        tally.profiles++;
        Libseccomp.Result runc = Libseccomp.build(profile, host);
        Ours ours = compileOurs(profile, host);
        String where = label + (host == Arch.X86_64 ? "" : " (native " + host + ")") + "\nprofile: "
                + Json.write(profile);
        if (runc.refused()) {
            tally.refusedByRunc++;
            tally.refusals.merge(kindOfRefusal(runc.refusal()), 1, Integer::sum);
            if (ours.refusal != null) {
                tally.refusedByBoth++;
                return;
            }
            tally.kinds.merge("runc refuses, jrunc accepts: " + kindOfRefusal(runc.refusal()), 1, Integer::sum);
            tally.profileMismatch(where + "\nrunc refuses (" + runc.refusal() + ") but the compiler accepts");
            return;
        }
        if (ours.refusal != null) {
            tally.kinds.merge("jrunc refuses, runc accepts: " + kindOfRefusal(ours.refusal.getMessage()), 1,
                    Integer::sum);
            tally.profileMismatch(where + "\nthe compiler refuses (" + ours.refusal.getMessage() + ") but runc accepts");
            return;
        }
        RuncEnosysStub stub = new RuncEnosysStub(profile);
        TestBpfInterpreter theirs = new TestBpfInterpreter(runc.program());
        FilterEvaluator.Prepared theirsEvaluated = FilterEvaluator.prepare(runc.program());
        Program program = ours.filter.program();
        TestBpfInterpreter mine = new TestBpfInterpreter(program);
        FilterEvaluator.Prepared mineEvaluated = FilterEvaluator.prepare(program);
        tally.compared++;
        String first = null;
        int mismatched = 0;
        Set<Long> sharedArgument = sharedArgument(profile, host);
        boolean archBug = comparesArchWithNumbers(runc.program());
        tally.archCompared += archBug ? 1 : 0;
        String bugLabel = archBug ? "[libseccomp's program compares seccomp_data.arch with syscall numbers] " : "";
        for (SeccompData data : samples(profile, host)) {
            ByteBuffer image = TestBpfInterpreter.image(data);
            int libseccomp = theirs.run(image);
            int evaluated = theirsEvaluated.evaluate(data);
            tally.decisions++;
            if (evaluated != libseccomp) {
                tally.kinds.merge("FilterEvaluator and TestBpfInterpreter disagree on libseccomp's program", 1,
                        Integer::sum);
                mismatched++;
                if (first == null) {
                    first = describe(data) + ": FilterEvaluator " + hex(evaluated) + ", TestBpfInterpreter "
                            + hex(libseccomp) + " on libseccomp's program";
                }
            }
            tally.compiledDecisions++;
            int expected = stub.decide(data, libseccomp);
            int actual = mine.run(image);
            int actualEvaluated = mineEvaluated.evaluate(data);
            if (actual != expected || actualEvaluated != actual) {
                mismatched++;
                tally.kinds.merge(actualEvaluated != actual
                        ? "FilterEvaluator and TestBpfInterpreter disagree on jrunc's program"
                        : bugLabel + (sharedArgument.contains(key(data.arch(), data.nr()))
                                ? "[several conditions on one argument] " : "")
                                + kindOfDecision(data, stub.enosys(data), expected, actual), 1, Integer::sum);
                if (VERBOSE) {
                    System.out.println(label.replace('\n', ' ') + ": " + describe(data) + ": runc " + hex(expected)
                            + (stub.enosys(data) ? " (stub)" : "") + ", jrunc " + hex(actual));
                }
                if (first == null) {
                    first = describe(data) + ": runc " + hex(expected) + " ("
                            + (stub.enosys(data) ? "its -ENOSYS stub" : "libseccomp") + "), jrunc " + hex(actual)
                            + (actualEvaluated != actual ? ", FilterEvaluator on jrunc's " + hex(actualEvaluated) : "");
                }
            }
        }
        if (mismatched > 0) {
            tally.mismatchedDecisions += mismatched;
            tally.profileMismatch(where + "\n" + bugLabel + mismatched + " decisions differ, the first: " + first + "\nstub: "
                    + stub + "\nlibseccomp's filter:\n" + Libseccomp.pfc(profile, host));
        }
    }

    private static long key(int arch, int nr) {
        return ((long) arch << 32) | Integer.toUnsignedLong(nr);
    }

    /**
     * The (arch, nr) of syscalls whose rules, taken together, put two or more conditions on one argument
     * index: where libseccomp 2.5.4 merges the rules into one tree per argument and a failed comparison can
     * skip its siblings, so the result is not the OR of the rules.
     */
    private static Set<Long> sharedArgument(LinuxSeccomp profile, Arch host) {
        Map<String, int[]> perName = new LinkedHashMap<>();
        for (LinuxSyscall call : Libseccomp.list(profile.syscalls())) {
            for (String name : Libseccomp.list(call.names())) {
                for (LinuxSeccompArg arg : Libseccomp.list(call.args())) {
                    if (arg.index() != null && arg.index() >= 0 && arg.index() < 6) {
                        perName.computeIfAbsent(name, n -> new int[6])[arg.index()]++;
                    }
                }
            }
        }
        Set<Long> out = new java.util.HashSet<>();
        perName.forEach((name, counts) -> {
            if (java.util.Arrays.stream(counts).anyMatch(c -> c > 1)) {
                for (Arch arch : swept(profile, host)) {
                    Integer nr = names(arch).get(name);
                    if (nr != null) {
                        out.add(key(arch.auditArch(), nr));
                    }
                }
            }
        });
        return out;
    }

    /**
     * Whether the program can compare the architecture word with something other than an AUDIT_ARCH value:
     * libseccomp 2.5.4 sometimes leaves out the load of the syscall number (seen with x32 in the filter, a
     * rule on a syscall that is a pseudo-syscall there, such as ipc, and a rule with conditions), so that
     * the syscall comparisons test seccomp_data.arch and nothing matches. runc loads that program as it is;
     * a mismatch in such a profile is labelled so that it is not mistaken for a compiler bug of its own.
     */
    static boolean comparesArchWithNumbers(Program program) {
        final int arch = 1, other = 2;
        int n = program.size();
        int[] state = new int[n];
        state[0] = other;
        Set<Integer> audits = new java.util.HashSet<>(Libseccomp.ARCHES.values());
        audits.add(AUDIT_X86_64);
        for (int pc = 0; pc < n; pc++) {
            int a = state[pc];
            if (a == 0) {
                continue;
            }
            io.jrunc.seccomp.Instruction insn = program.get(pc);
            int code = insn.code();
            switch (code & 0x07) {
                case 0x00 -> a = code == 0x20 && insn.k() == 4 ? arch : other;
                case 0x04 -> a = other;
                case 0x07 -> a = code == 0x87 ? other : a;
                case 0x05 -> {
                    if ((code & 0xf0) == 0x00) {
                        state[pc + 1 + insn.k()] |= a;
                    } else {
                        if ((a & arch) != 0 && (code & 0x08) == 0 && !audits.contains(insn.k())) {
                            return true;
                        }
                        state[pc + 1 + insn.jt()] |= a;
                        state[pc + 1 + insn.jf()] |= a;
                    }
                    continue;
                }
                case 0x06 -> {
                    continue;
                }
                default -> { }
            }
            if (pc + 1 < n) {
                state[pc + 1] |= a;
            }
        }
        return false;
    }

    private static String hex(int value) {
        return String.format("0x%08x", value);
    }

    private static String describe(SeccompData data) {
        StringBuilder s = new StringBuilder(String.format("seccomp_data{nr=0x%x (%d), arch=0x%08x, args=[",
                data.nr(), data.nr(), data.arch()));
        for (int i = 0; i < 6; i++) {
            s.append(i == 0 ? "" : ", ").append(String.format("0x%x", data.args()[i]));
        }
        return s.append("]}").toString();
    }

    // ---------------------------------------------------------------------------------------------------
    // What to try.

    /**
     * The architectures whose every number is tried: on x86-64, x86-64, x32 and x86 (in the filter or
     * not); on another host, AArch64 and ARM; and any other the profile lists.
     */
    private static List<Arch> swept(LinuxSeccomp profile, Arch host) {
        List<Arch> out = new ArrayList<>(host == Arch.X86_64 ? List.of(Arch.X86_64, Arch.X32, Arch.X86)
                : List.of(Arch.AARCH64, Arch.ARM));
        for (Arch arch : Arch.values()) {
            if (!out.contains(arch) && Libseccomp.list(profile.architectures()).contains(arch.specName())) {
                out.add(arch);
            }
        }
        return out;
    }

    private static void sweep(List<SeccompData> out, int audit, int from, int to) {
        for (int nr = from; nr <= to; nr++) {
            out.add(new SeccompData(nr, audit, 0, new long[6]));
        }
    }

    private static List<SeccompData> samples(LinuxSeccomp profile, Arch host) {
        List<SeccompData> out = new ArrayList<>();
        List<Arch> swept = swept(profile, host);
        for (Arch arch : swept) {
            Map<String, Integer> table = names(arch);
            switch (arch) {
                case X32 -> sweep(out, AUDIT_X86_64, X32_BIT, highest(table) + 64);
                case ARM -> {
                    sweep(out, AUDIT_ARM, 0, highestBelow(table, ARM_PRIVATE) + 64);
                    sweep(out, AUDIT_ARM, ARM_PRIVATE - 8, highest(table) + 64);
                }
                default -> sweep(out, arch.auditArch(), 0, highest(table) + 64);
            }
        }
        // A few numbers on architectures not swept (on x86-64: AArch64, which no filter there has).
        for (Arch arch : new Arch[] {Arch.AARCH64, Arch.X86_64, Arch.X86}) {
            if (!swept.contains(arch)) {
                for (int nr = 0; nr < 64; nr += 7) {
                    out.add(new SeccompData(nr, arch.auditArch(), 0, new long[6]));
                }
            }
        }
        int[] outOfRange = {0x3fffffff, X32_BIT - 1, X32_BIT + 600, X32_BIT + 0x3fffffff, 0x7fffffff, 0x80000000,
                0x80000000 | 1, 0xbfffffff, -2, -1};
        int[] audits = host == Arch.X86_64 ? new int[] {AUDIT_X86_64, AUDIT_X86, AUDIT_AARCH64, 0}
                : new int[] {AUDIT_AARCH64, AUDIT_ARM, AUDIT_X86_64, AUDIT_X86, 0};
        for (int nr : outOfRange) {
            for (int arch : audits) {
                out.add(new SeccompData(nr, arch, 0, new long[6]));
            }
        }
        // Syscalls with conditions: candidate values per argument index, per (arch, nr).
        boolean x86 = swept.contains(Arch.X86);
        Map<Long, List<Set<Long>>> candidates = new LinkedHashMap<>();
        for (LinuxSyscall call : Libseccomp.list(profile.syscalls())) {
            if (Libseccomp.list(call.args()).isEmpty()) {
                continue;
            }
            for (String name : Libseccomp.list(call.names())) {
                List<long[]> targets = new ArrayList<>(); // {audit, nr}
                for (Arch arch : swept) {
                    Integer nr = names(arch).get(name);
                    if (nr != null) {
                        targets.add(new long[] {arch.auditArch(), nr});
                    }
                }
                if (x86 && (SOCKET_FAMILY.contains(name) || "socketcall".equals(name))) {
                    targets.add(new long[] {AUDIT_X86, X86_SOCKETCALL});
                }
                if (x86 && (IPC_FAMILY.contains(name) || "ipc".equals(name))) {
                    targets.add(new long[] {AUDIT_X86, X86_IPC});
                }
                for (long[] target : targets) {
                    List<Set<Long>> perIndex = candidates.computeIfAbsent((target[0] << 32) | target[1], key -> {
                        List<Set<Long>> sets = new ArrayList<>();
                        for (int i = 0; i < 6; i++) {
                            sets.add(new TreeSet<>(Long::compareUnsigned));
                        }
                        return sets;
                    });
                    for (LinuxSeccompArg arg : Libseccomp.list(call.args())) {
                        if (arg.index() != null && arg.index() >= 0 && arg.index() < 6) {
                            around(arg, perIndex.get(arg.index()));
                        }
                    }
                    if (target[0] == AUDIT_X86 && (target[1] == X86_SOCKETCALL || target[1] == X86_IPC)) {
                        for (long call0 = 0; call0 <= 25; call0++) {
                            perIndex.getFirst().add(call0);
                        }
                    }
                }
            }
        }
        Random random = new Random(profile.toString().hashCode());
        for (Map.Entry<Long, List<Set<Long>>> entry : candidates.entrySet()) {
            int arch = (int) (entry.getKey() >>> 32);
            int nr = (int) (long) entry.getKey();
            Set<List<Long>> seen = new java.util.HashSet<>();
            for (long[] args : vectors(entry.getValue(), random)) {
                if (arch == AUDIT_X86 || arch == AUDIT_ARM) {
                    // A 32-bit task's arguments reach seccomp_data zero-extended: the high halves are 0.
                    for (int i = 0; i < 6; i++) {
                        args[i] &= 0xffffffffL;
                    }
                }
                if (seen.add(java.util.Arrays.stream(args).boxed().toList())) {
                    out.add(new SeccompData(nr, arch, 0, args));
                }
            }
        }
        return out;
    }

    /** Values around a condition's constants: below, equal, above, halves varied, mask bits flipped. */
    private static void around(LinuxSeccompArg arg, Set<Long> into) {
        long value = arg.value() == null ? 0 : arg.value();
        long two = arg.valueTwo() == null ? 0 : arg.valueTwo();
        into.add(0L);
        into.add(-1L);
        for (long c : new long[] {value, two}) {
            into.add(c);
            into.add(c - 1);
            into.add(c + 1);
            into.add(c & 0xffffffffL); // high half cleared
            into.add(c | 0xffffffff00000000L); // high half all ones
            into.add((c & 0xffffffffL) | (1L << 32)); // high half 1
            into.add(c & 0xffffffff00000000L); // low half cleared
            into.add(c | 0xffffffffL); // low half all ones
            into.add((c & 0xffffffff00000000L) | ((c + 1) & 0xffffffffL)); // low half + 1, high kept
            into.add((c & 0xffffffff00000000L) | ((c - 1) & 0xffffffffL)); // low half - 1, high kept
            into.add(c + (1L << 32));
            into.add(c - (1L << 32));
            into.add(c ^ Long.MIN_VALUE);
            into.add(c ^ 0x80000000L);
        }
        if ("SCMP_CMP_MASKED_EQ".equals(arg.op())) {
            long mask = value;
            into.add(two & mask);
            into.add(two | ~mask); // every bit outside the mask set
            into.add(two & ~mask);
            into.add(two ^ Long.lowestOneBit(mask));
            into.add(two ^ Long.highestOneBit(mask));
            into.add((two & mask) ^ Long.lowestOneBit(~mask));
            into.add((two & mask) ^ Long.highestOneBit(~mask));
            into.add(mask);
            into.add(~mask);
        }
    }

    /** Argument vectors: the whole product when small, else each index varied alone plus random mixes. */
    private static List<long[]> vectors(List<Set<Long>> perIndex, Random random) {
        List<List<Long>> values = new ArrayList<>();
        long product = 1;
        for (Set<Long> set : perIndex) {
            List<Long> list = set.isEmpty() ? List.of(0L) : List.copyOf(set);
            values.add(list);
            product *= list.size();
        }
        List<long[]> out = new ArrayList<>();
        if (product <= 1500) {
            for (long n = 0; n < product; n++) {
                long rest = n;
                long[] args = new long[6];
                for (int i = 0; i < 6; i++) {
                    int size = values.get(i).size();
                    args[i] = values.get(i).get((int) (rest % size));
                    rest /= size;
                }
                out.add(args);
            }
            return out;
        }
        for (int i = 0; i < 6; i++) {
            for (long v : values.get(i)) {
                long[] args = new long[6];
                for (int j = 0; j < 6; j++) {
                    args[j] = j == i ? v : values.get(j).get(random.nextInt(values.get(j).size()));
                }
                out.add(args);
            }
        }
        for (int n = 0; n < 1500; n++) {
            long[] args = new long[6];
            for (int j = 0; j < 6; j++) {
                args[j] = values.get(j).get(random.nextInt(values.get(j).size()));
            }
            out.add(args);
        }
        return out;
    }

    // ---------------------------------------------------------------------------------------------------
    // The profiles.

    /** Two small hand-written profiles and the clients' real ones ({@link Profiles#all}). */
    private static Map<String, LinuxSeccomp> fixtures() {
        Map<String, LinuxSeccomp> out = new LinkedHashMap<>();
        out.put("small-x86_64", smallX8664());
        out.put("small-multi-arch", smallMultiArch());
        for (Profiles.NamedProfile named : Profiles.all()) {
            out.put(named.name(), named.seccomp());
        }
        return out;
    }

    @Test
    void fixtureProfiles() {
        Tally tally = new Tally();
        for (Map.Entry<String, LinuxSeccomp> fixture : fixtures().entrySet()) {
            compare("fixture " + fixture.getKey(), fixture.getValue(), tally);
        }
        report("fixtures", tally);
    }

    /** The fixtures as runc on an aarch64 host and on an arm host builds them (x86 ones listed stay in). */
    @Test
    void fixtureProfilesOnOtherHosts() {
        Tally tally = new Tally();
        Map<String, LinuxSeccomp> fixtures = fixtures();
        fixtures.put("small-aarch64", smallAarch64());
        fixtures.put("small-arm", smallArm());
        fixtures.putAll(mobyForArm());
        for (Arch host : OTHER_HOSTS) {
            for (Map.Entry<String, LinuxSeccomp> fixture : fixtures.entrySet()) {
                compare("fixture " + fixture.getKey(), fixture.getValue(), host, tally);
            }
        }
        report("fixtures on aarch64 and arm hosts", tally);
    }

    /** moby's default.json as docker converts it on arm64 (AArch64 and ARM listed) and on arm, Linux 6.18. */
    private static Map<String, LinuxSeccomp> mobyForArm() {
        Map<String, LinuxSeccomp> out = new LinkedHashMap<>();
        String json;
        try (java.io.InputStream in = OracleTest.class.getResourceAsStream("/profiles/moby-default.json")) {
            if (in == null) {
                return out;
            }
            json = new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        for (String arch : new String[] {"arm64", "arm"}) {
            DockerProfile.Target target = new DockerProfile.Target(arch, DockerProfile.DOCKER_CAPABILITIES, 6, 18);
            out.put("moby-default-" + arch, DockerProfile.convert(json, target));
            out.put("moby-sys-admin-" + arch, DockerProfile.convert(json, target.withCapabilities("CAP_SYS_ADMIN")));
        }
        return out;
    }

    @Test
    void randomProfiles() {
        // the caller's choice, never a default: a CI run lists this skip as one it must not have
        Assumptions.assumeTrue(RANDOM_PROFILES > 0, "-Doracle.profiles=0 asked for no random profiles");
        Tally tally = new Tally();
        Random random = new Random(SEED);
        Pools pools = Pools.load();
        for (int i = 0; i < RANDOM_PROFILES; i++) {
            LinuxSeccomp profile = randomProfile(random, pools);
            if (ONLY >= 0 && i != ONLY) {
                continue;
            }
            compare("random profile " + i + " of seed " + SEED, profile, tally);
        }
        report("random (seed " + SEED + ")", tally, KNOWN_RANDOM_MISMATCHES);
    }

    /**
     * Random profiles for the other native architectures: AArch64 and ARM tables and architectures, each
     * compared as runc on an aarch64 host and as runc on an arm host builds it ({@code -Doracle.armProfiles=N},
     * 0 to skip; same seed, its own sequence).
     */
    @Test
    void randomProfilesOnOtherHosts() {
        Assumptions.assumeTrue(ARM_PROFILES > 0, "-Doracle.armProfiles=0 asked for no random profiles");
        Tally tally = new Tally();
        Random random = new Random(SEED ^ 0xa4c4L);
        Pools pools = Pools.loadArm();
        for (int i = 0; i < ARM_PROFILES; i++) {
            LinuxSeccomp profile = randomProfile(random, pools);
            if (ONLY >= 0 && i != ONLY) {
                continue;
            }
            for (Arch host : OTHER_HOSTS) {
                compare("random arm profile " + i + " of seed " + SEED, profile, host, tally);
            }
        }
        report("random on aarch64 and arm hosts (seed " + SEED + ")", tally, 0, ARM_PROFILES == 150);
    }

    private static final int ARM_PROFILES = Integer.getInteger("oracle.armProfiles", 150);
    /** The native architectures jrunc claims besides x86-64, each emulated through libseccomp's translation. */
    private static final List<Arch> OTHER_HOSTS = List.of(Arch.AARCH64, Arch.ARM);

    /** Random profiles of the default seed allowed to differ from runc's decisions: none. */
    private static final int KNOWN_RANDOM_MISMATCHES = 0;

    private static void report(String what, Tally tally) {
        report(what, tally, 0);
    }

    private static void report(String what, Tally tally, int tolerated) {
        report(what, tally, tolerated, RANDOM_PROFILES == 300);
    }

    private static void report(String what, Tally tally, int tolerated, boolean defaultCount) {
        StringBuilder out = new StringBuilder(String.format("oracle %s: %d profiles, %d refused by runc, %d refused by"
                + " both, %d compared; %d decisions on runc's filter, %d of them compared with jrunc's; %d profiles and"
                + " %d decisions differ%n", what, tally.profiles, tally.refusedByRunc, tally.refusedByBoth,
                tally.compared, tally.decisions, tally.compiledDecisions, tally.mismatchedProfiles,
                tally.mismatchedDecisions));
        out.append(String.format("  libseccomp's program compares seccomp_data.arch with syscall numbers in %d profiles%n",
                tally.archCompared));
        tally.refusals.forEach((why, n) -> out.append(String.format("  runc refused %d: %s%n", n, why)));
        tally.kinds.forEach((kind, n) -> out.append(String.format("  differ %d: %s%n", n, kind)));
        System.out.print(out);
        if (tally.mismatchedProfiles > (SEED == DEFAULT_SEED && ONLY < 0 && defaultCount ? tolerated : 0)) {
            fail(out + "\n" + String.join("\n\n", tally.details));
        }
        assertTrue(tally.compared > 0, what + ": runc and jrunc refused every profile, so no decision was compared");
    }

    /**
     * Names to draw from: the compiler's x86-64 and x86 tables, and oddities; or, for
     * the other hosts ({@link #loadArm}), the AArch64 and ARM tables.
     */
    private record Pools(List<String> x8664, List<String> x86Only, List<String> x8664Only, List<String> odd,
            String... arches) {
        /** The architectures a profile lists, drawn from these. */
        static final String[] X86_ARCHES = {"SCMP_ARCH_X86_64", "SCMP_ARCH_X86", "SCMP_ARCH_X32"};

        /** AArch64's names, ARM's alone, AArch64's alone, and oddities (x86-64's alone: pseudo on both). */
        static Pools loadArm() {
            Set<String> aarch64 = new TreeSet<>(Arch.AARCH64.table().names());
            Set<String> arm = new TreeSet<>(Arch.ARM.table().names());
            Set<String> x8664 = new TreeSet<>(Arch.X86_64.table().names());
            List<String> armOnly = arm.stream().filter(n -> !aarch64.contains(n)).toList();
            List<String> aarch64Only = aarch64.stream().filter(n -> !arm.contains(n)).toList();
            List<String> odd = new ArrayList<>(List.of("no_such_syscall", "read", "write", "restart_syscall",
                    "socketcall", "ipc", "socket", "connect", "semop", "clone3", "personality", "clone",
                    "cacheflush", "breakpoint", "set_tls", "usr26", "usr32", "arm_fadvise64_64",
                    "sync_file_range2", "open", "arch_prctl", "fstatat64", "newfstatat", "mmap2", "exit_group"));
            x8664.stream().filter(n -> !aarch64.contains(n) && !arm.contains(n)).forEach(odd::add);
            return new Pools(List.copyOf(aarch64), armOnly, aarch64Only, odd, "SCMP_ARCH_AARCH64", "SCMP_ARCH_ARM");
        }

        static Pools load() {
            Set<String> x8664 = new TreeSet<>(Arch.X86_64.table().names());
            Set<String> x86 = new TreeSet<>(Arch.X86.table().names());
            List<String> x86Only = x86.stream().filter(n -> !x8664.contains(n)).toList();
            List<String> x8664Only = x8664.stream().filter(n -> !x86.contains(n)).toList();
            List<String> odd = new ArrayList<>(List.of("no_such_syscall", "read", "write", "restart_syscall",
                    "socketcall", "ipc", "socket", "connect", "accept4", "semop", "shmat", "msgrcv", "clone3",
                    "process_mrelease", "futex_waitv", "set_mempolicy_home_node", "personality", "clone"));
            return new Pools(List.copyOf(x8664), x86Only, x8664Only, odd, X86_ARCHES);
        }
    }

    private static final String[] OPERATORS = {"SCMP_CMP_NE", "SCMP_CMP_LT", "SCMP_CMP_LE", "SCMP_CMP_EQ",
            "SCMP_CMP_GE", "SCMP_CMP_GT", "SCMP_CMP_MASKED_EQ"};
    private static final long[] VALUES = {0, 1, 2, 3, 7, 8, 0x10, 0x7f, 0xff, 0x100, 0x7fffffffL, 0x80000000L,
            0xffffffffL, 0x100000000L, 0x100000001L, 0x7fffffffffffffffL, 0x8000000000000000L,
            0xffffffff00000000L, 0xffffffff80000000L, -1L, -2L, 0x00ff00ff00ff00ffL, 131080, 2114060288};

    private static String pickAction(Random r, boolean asDefault) {
        int n = r.nextInt(100);
        if (n < 3) {
            return "SCMP_ACT_NOTIFY";
        }
        List<String> actions = Libseccomp.ACTIONS.subList(0, 8);
        if (asDefault && n < 30) {
            return "SCMP_ACT_ERRNO";
        }
        return actions.get(r.nextInt(actions.size()));
    }

    private static Integer pickErrno(Random r, int nullPercent) {
        if (r.nextInt(100) < nullPercent) {
            return null;
        }
        int[] values = {0, 1, 1, 13, 22, 38, 38, 4095, 4096, 0x50026, 65535, 65537};
        return values[r.nextInt(values.length)];
    }

    private static long pickValue(Random r) {
        return r.nextInt(4) == 0 ? r.nextLong() >>> r.nextInt(64) : VALUES[r.nextInt(VALUES.length)];
    }

    static LinuxSeccomp randomProfile(Random r, Pools pools) {
        String defaultAction = pickAction(r, true);
        Integer defaultErrnoRet = pickErrno(r, 60);
        List<String> arches = new ArrayList<>();
        for (String arch : pools.arches) {
            if (r.nextInt(100) < 60) {
                arches.add(arch);
            }
        }
        java.util.Collections.shuffle(arches, r);
        if (!arches.isEmpty() && r.nextInt(10) == 0) {
            arches.add(arches.getFirst()); // a duplicate: EEXIST, ignored
        }
        // A focus set, so that several rules land on the same syscalls.
        List<String> focus = new ArrayList<>();
        int size = 3 + r.nextInt(15);
        for (int i = 0; i < size; i++) {
            int n = r.nextInt(100);
            List<String> from = n < 55 ? pools.x8664 : n < 70 ? pools.x86Only : n < 80 ? pools.x8664Only : pools.odd;
            if (!from.isEmpty()) {
                focus.add(from.get(r.nextInt(from.size())));
            }
        }
        List<LinuxSyscall> rules = new ArrayList<>();
        int count = 1 + r.nextInt(10);
        for (int i = 0; i < count; i++) {
            List<String> names = new ArrayList<>();
            int namesCount = 1 + r.nextInt(3);
            for (int j = 0; j < namesCount; j++) {
                names.add(focus.get(r.nextInt(focus.size())));
            }
            String action = pickAction(r, false);
            Integer errnoRet = pickErrno(r, 50);
            List<LinuxSeccompArg> args = new ArrayList<>();
            int argCount = r.nextInt(100) < 45 ? 0 : 1 + r.nextInt(3);
            for (int j = 0; j < argCount; j++) {
                int index = !args.isEmpty() && r.nextInt(4) == 0 ? args.getFirst().index() : r.nextInt(6);
                String op = OPERATORS[r.nextInt(OPERATORS.length)];
                long value = pickValue(r);
                Long valueTwo = "SCMP_CMP_MASKED_EQ".equals(op) ? Long.valueOf(pickValue(r) & (r.nextBoolean() ? value : -1L))
                        : r.nextInt(8) == 0 ? Long.valueOf(pickValue(r)) : null;
                args.add(new LinuxSeccompArg(index, value, valueTwo, op));
            }
            rules.add(new LinuxSyscall(names, action, errnoRet, args));
        }
        return new LinuxSeccomp(defaultAction, defaultErrnoRet, arches, List.of(), null, null, rules);
    }

    @Test
    void libseccompTablesAreThere() {
        assertNotNull(X86_64_NAMES.get("read"));
        assertEquals(0, X86_64_NAMES.get("read"));
        assertEquals(X32_BIT, X32_NAMES.get("read"));
        assertEquals(359, X86_NAMES.get("socket"));
        assertEquals(X86_SOCKETCALL, X86_NAMES.get("socketcall"));
        assertEquals(X86_IPC, X86_NAMES.get("ipc"));
    }
}
