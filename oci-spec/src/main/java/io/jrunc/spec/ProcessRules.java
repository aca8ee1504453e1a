package io.jrunc.spec;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

/** Validation of {@code process} (config.md, Process, POSIX process, Linux Process, User). */
final class ProcessRules {

    /** getrlimit(2) resources, as runc maps them. */
    static final Set<String> RLIMITS = Set.of(
            "RLIMIT_AS", "RLIMIT_CORE", "RLIMIT_CPU", "RLIMIT_DATA", "RLIMIT_FSIZE", "RLIMIT_LOCKS",
            "RLIMIT_MEMLOCK", "RLIMIT_MSGQUEUE", "RLIMIT_NICE", "RLIMIT_NOFILE", "RLIMIT_NPROC",
            "RLIMIT_RSS", "RLIMIT_RTPRIO", "RLIMIT_RTTIME", "RLIMIT_SIGPENDING", "RLIMIT_STACK");

    static final Set<String> SCHEDULER_POLICIES = Set.of(
            "SCHED_OTHER", "SCHED_FIFO", "SCHED_RR", "SCHED_BATCH", "SCHED_ISO", "SCHED_IDLE",
            "SCHED_DEADLINE");

    static final Set<String> SCHEDULER_FLAGS = Set.of(
            "SCHED_FLAG_RESET_ON_FORK", "SCHED_FLAG_RECLAIM", "SCHED_FLAG_DL_OVERRUN",
            "SCHED_FLAG_KEEP_POLICY", "SCHED_FLAG_KEEP_PARAMS", "SCHED_FLAG_UTIL_CLAMP_MIN",
            "SCHED_FLAG_UTIL_CLAMP_MAX");

    static final Set<String> IO_PRIORITY_CLASSES = Set.of(
            "IOPRIO_CLASS_RT", "IOPRIO_CLASS_BE", "IOPRIO_CLASS_IDLE");

    private ProcessRules() {
    }

    static void check(Process process, JsonPath path, Problems problems) {
        if (process.consoleSize() != null) {
            problems.notNegative(path.field("consoleSize").field("height"), process.consoleSize().height());
            problems.notNegative(path.field("consoleSize").field("width"), process.consoleSize().width());
        }
        if (process.user() != null) {
            checkUser(process.user(), path.field("user"), problems);
        }
        if (process.args() == null || process.args().isEmpty()) {
            problems.add(path.field("args"), "must not be empty");
        }
        problems.requireAbsolutePath(path.field("cwd"), process.cwd());
        checkRlimits(process.rlimits(), path.field("rlimits"), problems);
        // The kernel's range for /proc/<pid>/oom_score_adj.
        problems.range(path.field("oomScoreAdj"), process.oomScoreAdj(), -1000, 1000);
        if (process.scheduler() != null) {
            checkScheduler(process.scheduler(), path.field("scheduler"), problems);
        }
        if (process.ioPriority() != null) {
            JsonPath io = path.field("ioPriority");
            problems.requireKnown(io.field("class"), process.ioPriority().ioClass(), IO_PRIORITY_CLASSES,
                    "I/O priority class");
            problems.range(io.field("priority"), process.ioPriority().priority(), 0, 7);
        }
        if (process.execCPUAffinity() != null) {
            JsonPath affinity = path.field("execCPUAffinity");
            problems.cpuList(affinity.field("initial"), process.execCPUAffinity().initial(), "CPU");
            problems.cpuList(affinity.field("final"), process.execCPUAffinity().finalCpus(), "CPU");
        }
    }

    private static void checkUser(User user, JsonPath path, Problems problems) {
        problems.uint32(path.field("uid"), user.uid());
        problems.uint32(path.field("gid"), user.gid());
        problems.uint32(path.field("umask"), user.umask());
        if (user.additionalGids() != null) {
            for (int i = 0; i < user.additionalGids().size(); i++) {
                problems.uint32(path.field("additionalGids").index(i), user.additionalGids().get(i));
            }
        }
    }

    /** The spec requires an error for unknown types and for a type given twice. */
    private static void checkRlimits(List<POSIXRlimit> rlimits, JsonPath path, Problems problems) {
        if (rlimits == null) {
            return;
        }
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < rlimits.size(); i++) {
            POSIXRlimit rlimit = rlimits.get(i);
            JsonPath at = path.index(i);
            problems.requireKnown(at.field("type"), rlimit.type(), RLIMITS, "rlimit type");
            if (rlimit.type() != null && !rlimit.type().isEmpty() && !seen.add(rlimit.type())) {
                problems.add(at.field("type"), "duplicate rlimit type \"" + rlimit.type() + "\"");
            }
            // Go would read a missing limit as 0, which silently forbids the resource.
            problems.requireSet(at.field("hard"), rlimit.hard());
            problems.requireSet(at.field("soft"), rlimit.soft());
        }
    }

    private static void checkScheduler(Scheduler scheduler, JsonPath path, Problems problems) {
        problems.requireKnown(path.field("policy"), scheduler.policy(), SCHEDULER_POLICIES, "scheduler policy");
        problems.range(path.field("nice"), scheduler.nice(), -20, 19);
        problems.range(path.field("priority"), scheduler.priority(), 0, 99);
        problems.eachKnown(path.field("flags"), scheduler.flags(), SCHEDULER_FLAGS, "scheduler flag");
    }
}
