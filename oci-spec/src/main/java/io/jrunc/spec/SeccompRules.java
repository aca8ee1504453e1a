package io.jrunc.spec;

import java.util.List;
import java.util.Set;

/** Validation of {@code linux.seccomp} (config-linux.md, Seccomp); names are libseccomp's. */
final class SeccompRules {

    static final Set<String> ACTIONS = Set.of(
            "SCMP_ACT_KILL", "SCMP_ACT_KILL_PROCESS", "SCMP_ACT_KILL_THREAD", "SCMP_ACT_TRAP",
            "SCMP_ACT_ERRNO", "SCMP_ACT_TRACE", "SCMP_ACT_ALLOW", "SCMP_ACT_LOG", "SCMP_ACT_NOTIFY");

    /** The spec: an errno return only makes sense for these; for others the runtime MUST fail. */
    static final Set<String> ACTIONS_WITH_ERRNO = Set.of("SCMP_ACT_ERRNO", "SCMP_ACT_TRACE");

    static final Set<String> ARCHITECTURES = Set.of(
            "SCMP_ARCH_X86", "SCMP_ARCH_X86_64", "SCMP_ARCH_X32", "SCMP_ARCH_ARM", "SCMP_ARCH_AARCH64",
            "SCMP_ARCH_MIPS", "SCMP_ARCH_MIPS64", "SCMP_ARCH_MIPS64N32", "SCMP_ARCH_MIPSEL",
            "SCMP_ARCH_MIPSEL64", "SCMP_ARCH_MIPSEL64N32", "SCMP_ARCH_PPC", "SCMP_ARCH_PPC64",
            "SCMP_ARCH_PPC64LE", "SCMP_ARCH_S390", "SCMP_ARCH_S390X", "SCMP_ARCH_PARISC",
            "SCMP_ARCH_PARISC64", "SCMP_ARCH_RISCV64", "SCMP_ARCH_LOONGARCH64", "SCMP_ARCH_M68K",
            "SCMP_ARCH_SH", "SCMP_ARCH_SHEB");

    static final Set<String> FLAGS = Set.of(
            "SECCOMP_FILTER_FLAG_TSYNC", "SECCOMP_FILTER_FLAG_LOG", "SECCOMP_FILTER_FLAG_SPEC_ALLOW",
            "SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV");

    static final Set<String> OPERATORS = Set.of(
            "SCMP_CMP_NE", "SCMP_CMP_LT", "SCMP_CMP_LE", "SCMP_CMP_EQ", "SCMP_CMP_GE", "SCMP_CMP_GT",
            "SCMP_CMP_MASKED_EQ");

    private static final String NOTIFY = "SCMP_ACT_NOTIFY";

    /** seccomp_data carries six syscall arguments. */
    private static final int MAX_ARG_INDEX = 5;

    private SeccompRules() {
    }

    static void check(LinuxSeccomp seccomp, JsonPath path, Problems problems) {
        JsonPath defaultAction = path.field("defaultAction");
        problems.requireKnown(defaultAction, seccomp.defaultAction(), ACTIONS, "seccomp action");
        if (NOTIFY.equals(seccomp.defaultAction())) {
            // The runtime's own syscalls after loading the filter would wait on an agent that has no fd yet.
            problems.add(defaultAction, "SCMP_ACT_NOTIFY cannot be the default action");
        }
        checkErrno(path.field("defaultErrnoRet"), seccomp.defaultErrnoRet(), seccomp.defaultAction(), problems);
        problems.eachKnown(path.field("architectures"), seccomp.architectures(), ARCHITECTURES,
                "seccomp architecture");
        problems.eachKnown(path.field("flags"), seccomp.flags(), FLAGS, "seccomp flag");
        boolean hasListener = seccomp.listenerPath() != null && !seccomp.listenerPath().isEmpty();
        if (!hasListener && usesNotify(seccomp)) {
            problems.add(path.field("listenerPath"), "must be set when SCMP_ACT_NOTIFY is used");
        }
        if (!hasListener && seccomp.listenerMetadata() != null && !seccomp.listenerMetadata().isEmpty()) {
            problems.add(path.field("listenerMetadata"), "must not be set without listenerPath");
        }
        List<LinuxSyscall> syscalls = seccomp.syscalls();
        if (syscalls != null) {
            for (int i = 0; i < syscalls.size(); i++) {
                checkSyscall(syscalls.get(i), path.field("syscalls").index(i), problems);
            }
        }
    }

    private static boolean usesNotify(LinuxSeccomp seccomp) {
        if (seccomp.syscalls() != null) {
            for (LinuxSyscall syscall : seccomp.syscalls()) {
                if (NOTIFY.equals(syscall.action())) {
                    return true;
                }
            }
        }
        return false;
    }

    private static void checkSyscall(LinuxSyscall syscall, JsonPath path, Problems problems) {
        if (syscall.names() == null || syscall.names().isEmpty()) {
            problems.add(path.field("names"), "must not be empty");
        } else {
            for (int i = 0; i < syscall.names().size(); i++) {
                problems.requireSet(path.field("names").index(i), syscall.names().get(i));
            }
        }
        problems.requireKnown(path.field("action"), syscall.action(), ACTIONS, "seccomp action");
        checkErrno(path.field("errnoRet"), syscall.errnoRet(), syscall.action(), problems);
        List<LinuxSeccompArg> args = syscall.args();
        if (args != null) {
            for (int i = 0; i < args.size(); i++) {
                JsonPath at = path.field("args").index(i);
                problems.range(at.field("index"), args.get(i).index(), 0, MAX_ARG_INDEX);
                problems.requireKnown(at.field("op"), args.get(i).op(), OPERATORS, "seccomp operator");
            }
        }
    }

    private static void checkErrno(JsonPath path, Integer errno, String action, Problems problems) {
        if (errno == null) {
            return;
        }
        if (action != null && ACTIONS.contains(action) && !ACTIONS_WITH_ERRNO.contains(action)) {
            problems.add(path, "only allowed with SCMP_ACT_ERRNO or SCMP_ACT_TRACE");
        }
        problems.notNegative(path, errno);
    }
}
