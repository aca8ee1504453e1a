package io.jrunc.seccomp;

import io.jrunc.spec.LinuxSeccomp;
import io.jrunc.spec.LinuxSeccompArg;
import io.jrunc.spec.LinuxSyscall;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;

/**
 * Compiles the runtime-spec's {@code linux.seccomp} into a classic BPF program whose decisions equal
 * those of the program libseccomp 2.5.4 builds from what runc 1.1 hands it, with runc's -ENOSYS stub
 * in front (docs/seccomp.md describes the layout and the oracle test that holds it to this).
 *
 * <h2>What runc 1.1.5 does with the profile (libcontainer/seccomp, specconv)</h2>
 * One rule per name, in the profile's order. A rule whose action (with its errno) equals the default
 * action is skipped; a name libseccomp does not know at all is skipped; other names are resolved on the
 * native architecture, and libseccomp carries the rule to every other architecture of the filter by
 * name (a name the native architecture lacks resolves to a pseudo number, and still applies on the
 * architectures that have it: "socketcall" on an x86-64 host reaches x86's 102). Without args the rule
 * is unconditional; with args on distinct indexes it is one rule (the conditions ANDed); when an index
 * repeats, each condition becomes a rule of its own. KILL is KILL_THREAD; ERRNO and TRACE carry
 * errnoRet (default EPERM) truncated to 16 bits; libseccomp refuses an ERRNO value of 4095 or more.
 * NOTIFY on "write" is refused, as runc does. The bad-architecture action is libseccomp's default,
 * KILL_THREAD (runc never sets SCMP_FLTATR_ACT_BADARCH).
 *
 * <h2>The decision function (libseccomp db.c and gen_bpf.c)</h2>
 * Per architecture, each syscall number has an entry that is either unconditional (one action) or a
 * chain tree ({@link RuleDb} reproduces how the tree is built). Rules on one syscall combine so:
 * <ul>
 * <li>an unconditional rule on a syscall that already has one is ignored, whatever its action (the first
 * unconditional rule wins), and a conditional rule added after an unconditional one is ignored;</li>
 * <li>an unconditional rule replaces all conditional rules added before it;</li>
 * <li>conditional rules merge into one tree: conditions are ordered by argument index (not as written);
 * on 64-bit architectures (x86-64, aarch64) each 64-bit comparison is a high-word then low-word test,
 * on 32-bit ones (x86, x32, arm) only the low 32 bits of datum and mask count; NE/LT/LE are ==/>=/>
 * with the action on the false side; a MASKED_EQ whose mask is zero in the compared words is dropped
 * (always true); the datum is ANDed with the mask. Equal tests share a node, others are siblings in
 * libseccomp's order; a shorter rule with the same action prunes longer ones it covers, a longer one is
 * dropped when a shorter one covers it. Two rules ending on the same test with different actions are
 * an error (-EEXIST: runc fails with "error adding seccomp rule for syscall X: file exists"); where
 * only a prefix is shared, the later rule's action may overwrite the earlier's on that shared node (a
 * libseccomp quirk, kept).</li>
 * </ul>
 * The tree is evaluated level by level: the first node whose outcome has an action returns it; an
 * outcome with a sub-level evaluates it, and falling off a sub-level resumes with the next node of the
 * level above; falling off the top gives the default action. No entry: the default action.
 * Pseudo-syscall entries are built (their errors count) but never reach the program.
 *
 * <p>Two gen_bpf.c behaviours change decisions and are reproduced ({@link Chains}): (1) a node testing
 * the word its predecessor left in the accumulator does not reload it, though it is also reached from
 * the ends of the previous node's sub-levels, which may have loaded another word; gen_bpf adds a reload
 * only when the block that first pulls it into the program (a backward, depth-first scan) left another
 * word, so on the other paths the node compares the wrong word (two LE rules on one 64-bit argument
 * show it). (2) Except for x86-64 or x32 alone (whose ABI check loads the number), the syscall number
 * is loaded by the first syscall block in priority order (0xffff minus the entry's chain nodes); when
 * that entry is a pseudo syscall it is skipped and nothing loads the number, so the whole section
 * compares the arch word with syscall numbers and gives the default action.
 *
 * <p>x86 (i386): libseccomp resolves the 20 socket calls and 12 SysV IPC calls to multiplexer pseudo
 * numbers, and arch-x86/syscalls.c (abi_rule_add) then adds two rules: one on socketcall(102) or
 * ipc(117) whose argument-0 condition is <em>replaced</em> by {@code arg0 == call number} (socket = 1 ...
 * sendmmsg = 20; semop = 1 ... shmctl = 24) while the rule's conditions on arguments 1 to 5 are kept as
 * written, applied to the multiplexer's own arguments; and one on the direct number (socket = 359)
 * with the rule's conditions unchanged, where x86 has one. Other names x86 lacks add nothing there.
 *
 * <p>Architecture check first: the arch word picks the architecture's section, an arch not in the
 * filter gets KILL_THREAD. x86-64 and x32 share AUDIT_ARCH_X86_64: with both in the filter, one
 * section holds both (x32 numbers carry bit 30) and no ABI check is made; with x86-64 alone, numbers
 * at or above 0x40000000 other than 0xffffffff get the bad-arch action; with x32 alone, numbers below
 * 0x40000000 do.
 *
 * <h2>runc's -ENOSYS stub (patchbpf/enosys_linux.go)</h2>
 * Unless the default action is ALLOW, LOG or TRACE (or defaultErrnoRet is SCMP_ACT_ERRNO(ENOSYS) as a
 * number, 0x50026, runc's own comparison): for each architecture <em>listed</em> in the profile (the
 * native one only if listed), the highest number that any name of any rule resolves to on it (as
 * seccomp_syscall_resolve_name_arch answers: skipped and unknown-native rules count; x86's multiplexed
 * socket/ipc names do not, they resolve to pseudo numbers); a number above it returns
 * SECCOMP_RET_ERRNO|ENOSYS before the filter proper. On AUDIT_ARCH_X86_64, x86-64's maximum applies to
 * numbers without bit 30 and x32's to numbers with it; a mode with no listed architecture goes to the
 * filter. An architecture whose highest number is 0 gets no check.
 *
 * <h2>Program layout</h2>
 * {@code ld arch}, one {@code jeq} per architecture section, {@code ret KILL_THREAD}. A section loads
 * the number and runs a balanced binary search (jge) over the intervals of numbers with one outcome
 * (stub, bad-arch, default and unconditional entries merged into intervals); a leaf is a {@code ret},
 * or a conditional entry's chain code placed right there: gen_bpf's blocks for it (per tree node,
 * continuation and accumulator state), laid out in topological order, then that chain's own
 * {@code ret}s. Jumps farther than 255 get {@code ja} trampolines ({@link BpfAssembler}). podman's
 * default profile (x86-64, x86, x32) compiles to about 600 instructions, libseccomp's to 1144.
 *
 * <p>Flags: SECCOMP_FILTER_FLAG_LOG, SPEC_ALLOW and WAIT_KILLABLE_RECV are passed on, TSYNC is accepted
 * and ignored (the process loading the filter is single-threaded), NEW_LISTENER is set when any rule's
 * action is NOTIFY (runc: any rule, before name resolution).
 */
public final class SeccompCompiler {
    private SeccompCompiler() {}

    static final int RET_KILL_PROCESS = 0x80000000, RET_KILL_THREAD = 0, RET_TRAP = 0x00030000,
            RET_ERRNO = 0x00050000, RET_USER_NOTIF = 0x7fc00000, RET_TRACE = 0x7ff00000, RET_LOG = 0x7ffc0000,
            RET_ALLOW = 0x7fff0000;

    private static final int ENOSYS = 38, EPERM = 1, MAX_ERRNO = 4095;
    private static final int X86_SOCKETCALL = 102, X86_IPC = 117;
    private static final long BIT30 = 0x40000000L;

    /**
     * @param nativeArch the architecture the container runs on: always in the filter, and the one
     *     syscall names are resolved on first, as runc does
     * @throws SeccompException for a profile that cannot be compiled, naming the JSON path
     */
    public static CompiledFilter compile(LinuxSeccomp seccomp, Arch nativeArch) {
        if ("SCMP_ACT_NOTIFY".equals(seccomp.defaultAction())) {
            throw new SeccompException("linux.seccomp.defaultAction: SCMP_ACT_NOTIFY cannot be used as default action");
        }
        int defaultAction = action(seccomp.defaultAction(), seccomp.defaultErrnoRet(),
                "linux.seccomp.defaultErrnoRet");
        List<LinuxSyscall> syscalls = seccomp.syscalls() == null ? List.of() : seccomp.syscalls();

        boolean usesNotify = false;
        for (int i = 0; i < syscalls.size(); i++) {
            LinuxSyscall rule = syscalls.get(i);
            if ("SCMP_ACT_NOTIFY".equals(rule.action())) {
                usesNotify = true;
                List<String> names = names(rule);
                for (int j = 0; j < names.size(); j++) {
                    if ("write".equals(names.get(j))) {
                        throw new SeccompException("linux.seccomp.syscalls[" + i + "].names[" + j
                                + "]: SCMP_ACT_NOTIFY cannot be used for the write syscall");
                    }
                }
            }
        }

        // The filter's architectures: native first, then the listed ones (seccomp_arch_add, EEXIST ignored).
        List<String> listed = seccomp.architectures() == null ? List.of() : seccomp.architectures();
        Arch[] archs = new Arch[1 + listed.size()];
        int archCount = 0;
        archs[archCount++] = nativeArch;
        Arch[] listedArchs = new Arch[listed.size()];
        for (int i = 0; i < listed.size(); i++) {
            Arch a = Arch.bySpecName(listed.get(i)).orElse(null);
            if (a == null) {
                throw new SeccompException("linux.seccomp.architectures[" + i + "]: " + listed.get(i)
                        + " is not supported by jrunc");
            }
            listedArchs[i] = a;
            if (indexOf(archs, archCount, a) < 0) {
                archs[archCount++] = a;
            }
        }
        RuleDb[] dbs = new RuleDb[archCount];
        for (int f = 0; f < archCount; f++) {
            dbs[f] = new RuleDb(archs[f] == Arch.X86_64 || archs[f] == Arch.AARCH64,
                    archs[f] == Arch.X32 ? Arch.X32_SYSCALL_BIT : 0);
        }

        // runc's -ENOSYS stub looks at every name of every rule on each listed architecture.
        boolean stub = !isAllowAction(seccomp.defaultAction())
                && !(seccomp.defaultErrnoRet() != null && seccomp.defaultErrnoRet() == (RET_ERRNO | ENOSYS));
        boolean[] listedFilter = new boolean[archCount];
        for (Arch a : listedArchs) {
            listedFilter[indexOf(archs, archCount, a)] = true;
        }
        int[] highestByFilter = new int[archCount];
        boolean hasX86 = indexOf(archs, archCount, Arch.X86) >= 0;

        // The rules, as runc's matchCall adds them; each name resolved once per architecture.
        int[] nrs = new int[archCount];
        ArrayList<String> unknown = new ArrayList<>();
        for (int i = 0; i < syscalls.size(); i++) {
            LinuxSyscall rule = syscalls.get(i);
            int act = action(rule.action(), rule.errnoRet(), null);
            List<String> names = names(rule);
            List<LinuxSeccompArg> args = rule.args() == null ? List.of() : rule.args();
            for (int j = 0; j < names.size(); j++) {
                String name = names.get(j);
                if (name == null || name.isEmpty()) {
                    throw new SeccompException("linux.seccomp.syscalls[" + i + "].names[" + j
                            + "]: empty string is not a valid syscall");
                }
                // One lookup answers the name on every architecture, and whether libseccomp knows it.
                int entry = SyscallTables.entry(name);
                if (entry < 0 && !unknown.contains(name)) {
                    unknown.add(name);
                }
                // x86's multiplexed calls: 100 + socketcall's call number, 200 + ipc's (0: not multiplexed)
                int mux = hasX86 && entry >= 0 ? SyscallTables.x86Multiplexer(entry) : 0;
                SyscallTables.numbers(entry, archs, archCount, nrs);
                for (int f = 0; f < archCount; f++) {
                    int nr = nrs[f];
                    if (listedFilter[f] && nr > highestByFilter[f] && !(archs[f] == Arch.X86 && mux != 0)) {
                        highestByFilter[f] = nr;
                    }
                }
                if (act == defaultAction || entry < 0) {
                    continue;
                }
                if ((act & 0xffff0000) == RET_ERRNO && (act & 0xffff) >= MAX_ERRNO) {
                    throw new SeccompException("linux.seccomp.syscalls[" + i + "].errnoRet: error adding seccomp"
                            + " rule for syscall " + name + ": errno " + (act & 0xffff)
                            + " is out of libseccomp's range (0 to 4094)");
                }
                if (args.isEmpty() && mux == 0) {
                    // addRule's common case, which cannot fail, in fewer calls (a cold JVM interprets them)
                    for (int f = 0; f < archCount; f++) {
                        if (nrs[f] != SyscallTable.ABSENT) {
                            dbs[f].addUnconditional(nrs[f], act);
                        } else if (archs[f] != Arch.X86) {
                            dbs[f].addPseudo(name, act, null);
                        }
                    }
                    continue;
                }
                if (args.isEmpty()) {
                    addRule(i, name, mux, act, null, archs, archCount, nrs, dbs);
                    continue;
                }
                RuleDb.Cond[] all = new RuleDb.Cond[6];
                boolean repeated = false;
                for (int c = 0; c < args.size(); c++) {
                    RuleDb.Cond cond = cond(args.get(c));
                    if (all[cond.arg()] != null) {
                        repeated = true;
                    }
                    all[cond.arg()] = cond;
                }
                if (!repeated) {
                    addRule(i, name, mux, act, all, archs, archCount, nrs, dbs);
                } else {
                    for (int c = 0; c < args.size(); c++) {
                        RuleDb.Cond cond = cond(args.get(c));
                        RuleDb.Cond[] one = new RuleDb.Cond[6];
                        one[cond.arg()] = cond;
                        addRule(i, name, mux, act, one, archs, archCount, nrs, dbs);
                    }
                }
            }
        }
        // The highest number per listed architecture (0: no check for it).
        long[] highest = new long[Arch.values().length];
        Arrays.fill(highest, -1);
        if (stub) {
            for (int f = 0; f < archCount; f++) {
                if (listedFilter[f] && highestByFilter[f] > 0) {
                    highest[archs[f].ordinal()] = highestByFilter[f];
                }
            }
        }

        // The sections, in libseccomp's order (x86-64 and x32 together, where the first of them is).
        Section[] sectionList = new Section[archCount];
        int sections = 0;
        for (int f = 0; f < archCount; f++) {
            Section section;
            if (archs[f] == Arch.X86_64 || archs[f] == Arch.X32) {
                int x64 = indexOf(archs, archCount, Arch.X86_64);
                int x32 = indexOf(archs, archCount, Arch.X32);
                if (f != Math.min(x64 < 0 ? f : x64, x32 < 0 ? f : x32)) {
                    continue;
                }
                section = new Section(x64 >= 0 ? dbs[x64] : null, x32 >= 0 ? dbs[x32] : null, defaultAction, true,
                        x32 >= 0 && (x64 < 0 || x32 < x64));
                section.x86Max = stubMax(highest, Arch.X86_64);
                section.x32Max = stubMax(highest, Arch.X32);
            } else {
                section = new Section(dbs[f], null, defaultAction, false, false);
                section.max = stubMax(highest, archs[f]);
            }
            section.audit = archs[f].auditArch();
            sectionList[sections++] = section;
        }

        // The conditional entries' code, and gen_bpf's pull-in order over them: from the program's end.
        Chains chains = new Chains();
        java.util.IdentityHashMap<RuleDb.Entry, Chains.Blk> roots = new java.util.IdentityHashMap<>();
        for (int s = sections - 1; s >= 0; s--) {
            ArrayList<RuleDb.Entry> ordered = sectionList[s].byPriority();
            for (int i = ordered.size() - 1; i >= 0; i--) {
                RuleDb.Entry e = ordered.get(i);
                if (e.chains != null) {
                    Chains.Blk root = chains.root(e, defaultAction);
                    roots.put(e, root);
                    chains.pull(root);
                }
            }
        }

        // The program.
        BpfAssembler asm = new BpfAssembler();
        asm.stmt(BpfAssembler.LD_W_ABS, 4);
        int[] sectionLabels = new int[sections];
        for (int s = 0; s < sections; s++) {
            sectionLabels[s] = asm.newLabel();
            int next = asm.newLabel();
            asm.jump(BpfAssembler.JEQ_K, sectionList[s].audit, sectionLabels[s], next);
            asm.bind(next);
        }
        asm.ret(RET_KILL_THREAD);
        for (int s = 0; s < sections; s++) {
            asm.bind(sectionLabels[s]);
            asm.stmt(BpfAssembler.LD_W_ABS, 0);
            sectionList[s].emit(asm, chains, roots);
        }
        Program program = asm.finish();

        int flags = usesNotify ? CompiledFilter.FLAG_NEW_LISTENER : 0;
        List<String> flagNames = seccomp.flags() == null ? List.of() : seccomp.flags();
        for (String flag : flagNames) {
            switch (flag) {
                case "SECCOMP_FILTER_FLAG_LOG" -> flags |= CompiledFilter.FLAG_LOG;
                case "SECCOMP_FILTER_FLAG_SPEC_ALLOW" -> flags |= CompiledFilter.FLAG_SPEC_ALLOW;
                case "SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV" -> flags |= CompiledFilter.FLAG_WAIT_KILLABLE_RECV;
                default -> {
                    // SECCOMP_FILTER_FLAG_TSYNC: the process that loads the filter has one thread.
                }
            }
        }
        return new CompiledFilter(program, flags, usesNotify, unknown);
    }

    private static long stubMax(long[] highest, Arch a) {
        long v = highest[a.ordinal()];
        return v < 0 ? -1 : v;
    }

    private static List<String> names(LinuxSyscall rule) {
        return rule.names() == null ? List.of() : rule.names();
    }

    private static int indexOf(Arch[] archs, int count, Arch a) {
        for (int i = 0; i < count; i++) {
            if (archs[i] == a) {
                return i;
            }
        }
        return -1;
    }

    private static boolean isAllowAction(String action) {
        return "SCMP_ACT_ALLOW".equals(action) || "SCMP_ACT_LOG".equals(action) || "SCMP_ACT_TRACE".equals(action);
    }

    /** runc's getAction, as libseccomp-golang hands it to libseccomp (a SECCOMP_RET_* value). */
    private static int action(String name, Integer errnoRet, String errnoPath) {
        int data = errnoRet == null ? EPERM : errnoRet & 0xffff;
        int value = switch (name) {
            case "SCMP_ACT_KILL", "SCMP_ACT_KILL_THREAD" -> RET_KILL_THREAD;
            case "SCMP_ACT_KILL_PROCESS" -> RET_KILL_PROCESS;
            case "SCMP_ACT_TRAP" -> RET_TRAP;
            case "SCMP_ACT_ERRNO" -> RET_ERRNO | data;
            case "SCMP_ACT_TRACE" -> RET_TRACE | data;
            case "SCMP_ACT_LOG" -> RET_LOG;
            case "SCMP_ACT_ALLOW" -> RET_ALLOW;
            case "SCMP_ACT_NOTIFY" -> RET_USER_NOTIF;
            default -> throw new SeccompException("unknown seccomp action " + name);
        };
        if (errnoPath != null && (value & 0xffff0000) == RET_ERRNO && data >= MAX_ERRNO) {
            // seccomp_init refuses it: runc fails with "error creating filter".
            throw new SeccompException(errnoPath + ": errno " + data + " is out of libseccomp's range (0 to 4094)");
        }
        return value;
    }

    private static RuleDb.Cond cond(LinuxSeccompArg arg) {
        int index = arg.index() == null ? 0 : arg.index();
        long value = arg.value() == null ? 0 : arg.value();
        long valueTwo = arg.valueTwo() == null ? 0 : arg.valueTwo();
        return switch (arg.op()) {
            case "SCMP_CMP_NE" -> new RuleDb.Cond(index, RuleDb.NE, -1L, value);
            case "SCMP_CMP_LT" -> new RuleDb.Cond(index, RuleDb.LT, -1L, value);
            case "SCMP_CMP_LE" -> new RuleDb.Cond(index, RuleDb.LE, -1L, value);
            case "SCMP_CMP_EQ" -> new RuleDb.Cond(index, RuleDb.EQ, -1L, value);
            case "SCMP_CMP_GE" -> new RuleDb.Cond(index, RuleDb.GE, -1L, value);
            case "SCMP_CMP_GT" -> new RuleDb.Cond(index, RuleDb.GT, -1L, value);
            case "SCMP_CMP_MASKED_EQ" -> new RuleDb.Cond(index, RuleDb.MASKED_EQ, value, valueTwo);
            default -> throw new SeccompException("unknown seccomp operator " + arg.op());
        };
    }

    /** seccomp_rule_add_array over the filter's architectures (db_col_rule_add, arch_filter_rule_add). */
    private static void addRule(int ruleIndex, String name, int mux, int act, RuleDb.Cond[] conds,
            Arch[] archs, int archCount, int[] nrs, RuleDb[] dbs) {
        for (int f = 0; f < archCount; f++) {
            int rc = addRule(archs[f], nrs[f], dbs[f], name, archs[f] == Arch.X86 ? mux : 0, act, conds);
            if (rc < 0) {
                String why = rc == -RuleDb.EEXIST ? "file exists" : "errno " + -rc;
                throw new SeccompException("linux.seccomp.syscalls[" + ruleIndex + "]: error adding seccomp rule for"
                        + " syscall " + name + ": " + why + " (a rule with the same conditions and another action"
                        + " exists on " + archs[f].specName() + ")");
            }
        }
    }

    private static int addRule(Arch arch, int nr, RuleDb db, String name, int mux, int act, RuleDb.Cond[] conds) {
        if (mux != 0) {
            int multiplexer = mux > 200 ? X86_IPC : X86_SOCKETCALL;
            RuleDb.Cond[] muxed = conds == null ? new RuleDb.Cond[6] : conds.clone();
            muxed[0] = new RuleDb.Cond(0, RuleDb.EQ, -1L, mux % 100);
            int rc = db.add(multiplexer, act, muxed);
            if (rc < 0) {
                return rc;
            }
            return nr != SyscallTable.ABSENT ? db.add(nr, act, conds) : db.addPseudo(name, act, conds);
        }
        if (nr != SyscallTable.ABSENT) {
            return db.add(nr, act, conds);
        }
        // A name this architecture lacks: x86's abi_rule_add drops it; elsewhere it is a pseudo entry.
        return arch == Arch.X86 ? 0 : db.addPseudo(name, act, conds);
    }

    /** One AUDIT_ARCH value's section: its decisions over all 2^32 syscall numbers. */
    private static final class Section {
        private static final long BLOCK = 1L << 32;

        final RuleDb primary, x32;
        final int defaultAction;
        final boolean x86only, x32only;
        long max = -1, x86Max = -1, x32Max = -1;
        /** Real entries by number, the primary filter's then the other's (x32 numbers are above x86-64's). */
        final RuleDb.Entry[] firstSorted, secondSorted;

        int audit;

        /** No syscall block loads the number (see the constructor): the section decides the default. */
        final boolean blind;
        /** x32's filter comes before x86-64's in the collection (libseccomp then sorts its syscalls first). */
        final boolean x32First;

        Section(RuleDb primary, RuleDb x32, int defaultAction, boolean x86Audit, boolean x32First) {
            this.primary = primary;
            this.x32 = x32;
            this.x32First = x32First;
            this.defaultAction = defaultAction;
            this.x86only = x86Audit && x32 == null;
            this.x32only = x86Audit && primary == null;
            // gen_bpf loads the syscall number in the first syscall block by priority (acc_reset) except
            // for x86-64 or x32 alone, whose ABI check loads it; when that first entry is a pseudo
            // syscall it is skipped and nothing loads the number: every check compares the arch word.
            boolean accReset = !x86Audit || (primary != null && x32 != null);
            RuleDb first = x32First ? x32 : primary, second = x32First ? primary : x32;
            firstSorted = first == null ? new RuleDb.Entry[0] : first.sorted();
            secondSorted = second == null ? new RuleDb.Entry[0] : second.sorted();
            this.blind = accReset && headIsPseudo(first, firstSorted, second, secondSorted);
        }

        private static boolean headIsPseudo(RuleDb first, RuleDb.Entry[] firstSorted, RuleDb second,
                RuleDb.Entry[] secondSorted) {
            boolean any = false, pseudo = false;
            int best = 0;
            for (int d = 0; d < 2; d++) {
                RuleDb db = d == 0 ? first : second;
                if (db == null) {
                    continue;
                }
                for (RuleDb.Entry e : d == 0 ? firstSorted : secondSorted) {
                    if (!any || Integer.compareUnsigned(e.priority, best) > 0) {
                        any = true;
                        best = e.priority;
                        pseudo = false;
                    }
                }
                for (RuleDb.Entry e : db.pseudo.values()) {
                    if (!any || Integer.compareUnsigned(e.priority, best) > 0) {
                        any = true;
                        best = e.priority;
                        pseudo = true;
                    }
                }
            }
            return pseudo;
        }

        /**
         * The entries in the order of the section's syscall blocks (gen_bpf's _sys_priority_sort: each
         * filter's list, by number, sorted stably by descending priority, the first filter's first).
         */
        ArrayList<RuleDb.Entry> byPriority() {
            // Only the conditional entries matter (their relative order is that of the full sort).
            ArrayList<RuleDb.Entry> list = new ArrayList<>();
            for (RuleDb.Entry[] sorted : new RuleDb.Entry[][] {firstSorted, secondSorted}) {
                for (RuleDb.Entry e : sorted) {
                    if (e.num >= 0 && e.valid && e.chains != null) {
                        list.add(e);
                    }
                }
            }
            // Stable, by descending priority (unsigned).
            for (int i = 1; i < list.size(); i++) {
                RuleDb.Entry e = list.get(i);
                int j = i - 1;
                while (j >= 0 && Integer.compareUnsigned(list.get(j).priority, e.priority) < 0) {
                    list.set(j + 1, list.get(j));
                    j--;
                }
                list.set(j + 1, e);
            }
            return list;
        }

        /** Outcome at number nr: a return value (below 2^32) or BLOCK + index of a chain entry. */
        long outcome(long nr, RuleDb.Entry e, ArrayList<RuleDb.Entry> chains) {
            if (x86Max >= 0 || x32Max >= 0) {
                boolean bit30 = (nr & BIT30) != 0;
                if (bit30 ? (x32Max >= 0 && nr > x32Max) : (x86Max >= 0 && nr > x86Max)) {
                    return (RET_ERRNO | ENOSYS) & 0xffffffffL;
                }
            } else if (max >= 0 && nr > max) {
                return (RET_ERRNO | ENOSYS) & 0xffffffffL;
            }
            if (x86only && nr >= BIT30 && nr != 0xffffffffL) {
                return RET_KILL_THREAD;
            }
            if (x32only && nr < BIT30) {
                return RET_KILL_THREAD;
            }
            if (blind) {
                return defaultAction & 0xffffffffL;
            }
            if (e == null) {
                return defaultAction & 0xffffffffL;
            }
            if (e.chains == null) {
                return e.action & 0xffffffffL;
            }
            if (e.chainIndex < 0) {
                e.chainIndex = chains.size();
                chains.add(e);
            }
            return BLOCK + e.chainIndex;
        }

        void emit(BpfAssembler asm, Chains code, java.util.IdentityHashMap<RuleDb.Entry, Chains.Blk> roots) {
            // The numbers where the outcome may change, ascending: each entry's number and the one after
            // it, and the fixed bounds. The entries come sorted (each filter's, and x86-64's and x32's
            // numbers never meet), so merging them costs one pass where sorting cost a cold JVM ~0.4 ms.
            RuleDb.Entry[] entries = merge(firstSorted, secondSorted);
            long[] bounds = new long[8];
            int b = 0;
            bounds[b++] = 0;
            bounds[b++] = BIT30;
            bounds[b++] = 0x80000000L;
            bounds[b++] = 0xc0000000L;
            bounds[b++] = 0xffffffffL;
            if (max >= 0) {
                bounds[b++] = max + 1;
            }
            if (x86Max >= 0) {
                bounds[b++] = x86Max + 1;
            }
            if (x32Max >= 0) {
                bounds[b++] = x32Max + 1;
            }
            sort(bounds, b);
            ArrayList<RuleDb.Entry> chains = new ArrayList<>();
            int cap = entries.length * 2 + b;
            long[] starts = new long[cap];
            long[] outcomes = new long[cap];
            int m = 0;
            long prev = -1;
            int i = 0; // the next entry's number, then the one after it (half = 1)
            int half = 0;
            int k = 0; // the next bound
            int j = 0; // the first entry whose number is not below the point
            while (i < entries.length || k < b) {
                long start;
                long fromEntry = i < entries.length ? entries[i].num + (long) half : Long.MAX_VALUE;
                if (k < b && bounds[k] <= fromEntry) {
                    start = bounds[k++];
                } else {
                    start = fromEntry;
                    if (half == 0) {
                        half = 1;
                    } else {
                        half = 0;
                        i++;
                    }
                }
                if (start == prev || start > 0xffffffffL) {
                    continue;
                }
                prev = start;
                while (j < entries.length && entries[j].num < start) {
                    j++;
                }
                RuleDb.Entry e = j < entries.length && entries[j].num == start ? entries[j] : null;
                long o = outcome(start, e, chains);
                if (m > 0 && outcomes[m - 1] == o) {
                    continue;
                }
                starts[m] = start;
                outcomes[m++] = o;
            }
            tree(asm, starts, outcomes, 0, m - 1, chains, code, roots);
        }

        /** The real entries of both filters by ascending number (as db.c orders each: unsigned). */
        private static RuleDb.Entry[] merge(RuleDb.Entry[] a, RuleDb.Entry[] b) {
            RuleDb.Entry[] out = new RuleDb.Entry[a.length + b.length];
            int i = 0, j = 0, n = 0;
            while (i < a.length || j < b.length) {
                if (j == b.length || i < a.length && Integer.compareUnsigned(a[i].num, b[j].num) < 0) {
                    out[n++] = a[i++];
                } else {
                    out[n++] = b[j++];
                }
            }
            return out;
        }

        /** Insertion sort of the few bounds: Arrays.sort would load DualPivotQuicksort on a cold JVM. */
        private static void sort(long[] a, int n) {
            for (int i = 1; i < n; i++) {
                long v = a[i];
                int j = i - 1;
                while (j >= 0 && a[j] > v) {
                    a[j + 1] = a[j];
                    j--;
                }
                a[j + 1] = v;
            }
        }

        private void tree(BpfAssembler asm, long[] starts, long[] outcomes, int lo, int hi,
                ArrayList<RuleDb.Entry> chains, Chains code, java.util.IdentityHashMap<RuleDb.Entry, Chains.Blk> roots) {
            if (lo == hi) {
                long o = outcomes[lo];
                if (o < BLOCK) {
                    asm.ret((int) o);
                } else {
                    code.emit(asm, roots.get(chains.get((int) (o - BLOCK))));
                }
                return;
            }
            int mid = (lo + hi + 1) >>> 1;
            int right = asm.newLabel();
            int left = asm.newLabel();
            asm.jump(BpfAssembler.JGE_K, (int) starts[mid], right, left);
            asm.bind(left);
            tree(asm, starts, outcomes, lo, mid - 1, chains, code, roots);
            asm.bind(right);
            tree(asm, starts, outcomes, mid, hi, chains, code, roots);
        }
    }

    /**
     * The argument-chain code of all conditional entries, built as gen_bpf.c builds it, because its
     * decisions depend on gen_bpf's accumulator tracking: a node testing the same word as the node
     * before it (its previous sibling, or for a level's first node the parent) does not reload the
     * accumulator, yet it is also reached from the ends of the previous sibling's sub-levels, where
     * the accumulator may hold another word. gen_bpf prepends a reload only when the first block to
     * pull it into the program (_gen_bpf_build_bpf's backward scan) leaves another word; the other
     * paths then compare the wrong word. So: blocks per (node, continuation, incoming accumulator),
     * identical blocks merged (_hsh_add compares instructions and accumulator states), the pull-in
     * order replayed to decide the reloads, then each chain's blocks copied out in topological order.
     */
    static final class Chains {
        private static final int UNDEF = -1;

        /** A gen_bpf block: a node's test, or a return. */
        static final class Blk {
            final int id;
            boolean isRet;
            int retValue;
            boolean loads;
            int offset;
            boolean ands;
            int mask;
            int op;
            int datum;
            Blk jt, jf;
            int startOffset = UNDEF, startMask = -1, endOffset = UNDEF, endMask = -1;
            boolean found, fixup;

            Blk(int id) {
                this.id = id;
            }

            /** What _hsh_add compares: the instructions (targets by identity) and the accumulator states. */
            Key key() {
                if (isRet) {
                    return new Key(new int[] {1, retValue});
                }
                return new Key(new int[] {0, loads ? 1 : 0, offset, ands ? 1 : 0, mask, op, datum, jt.id, jf.id,
                    startOffset, startMask, endOffset, endMask});
            }
        }

        /** A hash key over ints (no records: their equals/hashCode bootstrap through invokedynamic). */
        static final class Key {
            final int[] v;

            Key(int[] v) {
                this.v = v;
            }

            @Override
            public int hashCode() {
                return Arrays.hashCode(v);
            }

            @Override
            public boolean equals(Object o) {
                return o instanceof Key k && Arrays.equals(v, k.v);
            }
        }

        private final HashMap<Key, Blk> canonical = new HashMap<>();
        private final HashMap<RuleDb.Node, HashMap<Key, Blk>> memo = new HashMap<>();
        private int ids;

        private Blk intern(Blk b) {
            Key key = b.key();
            Blk known = canonical.get(key);
            if (known != null) {
                return known;
            }
            canonical.put(key, b);
            return b;
        }

        Blk ret(int value) {
            Blk b = new Blk(ids++);
            b.isRet = true;
            b.retValue = value;
            return intern(b);
        }

        /** The first block of an entry's chain (entered with the syscall number loaded, or nothing). */
        Blk root(RuleDb.Entry entry, int defaultAction) {
            return level(head(entry.chains), ret(defaultAction), UNDEF, -1);
        }

        private static RuleDb.Node head(RuleDb.Node n) {
            while (n.lvlPrv != null) {
                n = n.lvlPrv;
            }
            return n;
        }

        /** _gen_bpf_node and _gen_bpf_chain_lvl_res for node n, the accumulator holding (accOffset, accMask). */
        private Blk level(RuleDb.Node n, Blk cont, int accOffset, int accMask) {
            Key memoKey = new Key(new int[] {cont.id, accOffset, accMask});
            HashMap<Key, Blk> byKey = memo.get(n);
            if (byKey == null) {
                byKey = new HashMap<>(4);
                memo.put(n, byKey);
            }
            Blk known = byKey.get(memoKey);
            if (known != null) {
                return known;
            }
            Blk b = new Blk(ids++);
            b.startOffset = accOffset;
            b.startMask = accMask;
            int offset = accOffset, mask = accMask;
            if (n.offset != offset || (n.mask & mask) != n.mask) {
                b.loads = true;
                b.offset = n.offset;
                offset = n.offset;
                mask = -1;
                b.startOffset = UNDEF;
                b.startMask = -1;
            }
            if (n.mask != mask) {
                b.ands = true;
                b.mask = n.mask;
                mask = n.mask;
            }
            b.endOffset = offset;
            b.endMask = mask;
            b.op = n.op == RuleDb.GT ? BpfAssembler.JGT_K : n.op == RuleDb.GE ? BpfAssembler.JGE_K : BpfAssembler.JEQ_K;
            b.datum = n.datum;
            Blk next = n.lvlNxt != null ? level(n.lvlNxt, cont, offset, mask) : cont;
            b.jt = n.nxtT != null ? level(head(n.nxtT), next, offset, mask) : n.actTFlg ? ret(n.actT) : next;
            b.jf = n.nxtF != null ? level(head(n.nxtF), next, offset, mask) : n.actFFlg ? ret(n.actF) : next;
            Blk c = intern(b);
            byKey.put(memoKey, c);
            return c;
        }

        /**
         * Replays the pull-in of _gen_bpf_build_bpf for a chain whose syscall block is met (scanning
         * backwards from the program's end) now: depth first, a block's true target before its false one.
         */
        void pull(Blk root) {
            pull(root, 0, -1);
        }

        private void pull(Blk b, int pullerEndOffset, int pullerEndMask) {
            if (b.found) {
                return;
            }
            b.found = true;
            if (b.startOffset != UNDEF && (b.startOffset != pullerEndOffset || b.startMask != pullerEndMask)) {
                b.fixup = true;
            }
            if (b.isRet) {
                return;
            }
            pull(b.jt, b.endOffset, b.endMask);
            pull(b.jf, b.endOffset, b.endMask);
        }

        /** The chain's code: its blocks in topological order, then its returns. */
        void emit(BpfAssembler asm, Blk root) {
            if (root.isRet) {
                asm.ret(root.retValue);
                return;
            }
            ArrayList<Blk> order = new ArrayList<>();
            HashMap<Blk, Integer> state = new HashMap<>();
            visit(root, order, state);
            HashMap<Blk, Integer> labels = new HashMap<>();
            ArrayList<Blk> rets = new ArrayList<>();
            for (int i = order.size() - 1; i >= 0; i--) {
                labels.put(order.get(i), asm.newLabel());
            }
            for (int i = order.size() - 1; i >= 0; i--) {
                Blk b = order.get(i);
                asm.bind(labels.get(b));
                if (b.fixup) {
                    asm.stmt(BpfAssembler.LD_W_ABS, b.startOffset);
                    if (b.startMask != -1) {
                        asm.stmt(BpfAssembler.ALU_AND_K, b.startMask);
                    }
                }
                if (b.loads) {
                    asm.stmt(BpfAssembler.LD_W_ABS, b.offset);
                }
                if (b.ands) {
                    asm.stmt(BpfAssembler.ALU_AND_K, b.mask);
                }
                asm.jump(b.op, b.datum, label(b.jt, labels, rets, asm), label(b.jf, labels, rets, asm));
            }
            for (Blk r : rets) {
                asm.bind(labels.get(r));
                asm.ret(r.retValue);
            }
        }

        private static int label(Blk target, HashMap<Blk, Integer> labels, ArrayList<Blk> rets, BpfAssembler asm) {
            Integer l = labels.get(target);
            if (l == null) {
                l = asm.newLabel();
                labels.put(target, l);
                rets.add(target);
            }
            return l;
        }

        private static void visit(Blk b, ArrayList<Blk> order, HashMap<Blk, Integer> state) {
            if (b.isRet) {
                return;
            }
            Integer s = state.get(b);
            if (s != null) {
                if (s == 1) {
                    throw new IllegalStateException("cycle in a seccomp chain");
                }
                return;
            }
            state.put(b, 1);
            visit(b.jf, order, state);
            visit(b.jt, order, state);
            state.put(b, 2);
            order.add(b);
        }
    }
}
