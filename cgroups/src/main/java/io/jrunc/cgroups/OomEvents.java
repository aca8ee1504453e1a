package io.jrunc.cgroups;

/**
 * OOM counters of a container's cgroup, for the runtime's {@code events} command to poll (an OOM event
 * is a counter that went up). cgroup v2: memory.events {@code oom} (the limit was hit and reclaim
 * failed) and {@code oom_kill} (a process was killed). cgroup v1: memory.oom_control's {@code oom_kill}
 * counter (kernel 4.13+); v1 has no separate "oom" counter, so {@code oom} is the same number, and
 * {@code underOom} says whether the cgroup is stuck in OOM right now (the OOM killer disabled).
 */
public record OomEvents(long oom, long oomKill, boolean underOom) {
}
