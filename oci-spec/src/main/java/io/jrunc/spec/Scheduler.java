package io.jrunc.spec;

import java.util.List;

/**
 * Scheduling policy and attributes for sched_setattr(2) (config.md, Linux Process scheduler).
 *
 * @param policy e.g. {@code SCHED_FIFO}; required.
 * @param runtime nanoseconds, SCHED_DEADLINE only.
 */
public record Scheduler(
        String policy,
        Integer nice,
        Integer priority,
        List<String> flags,
        @Uint64 Long runtime,
        @Uint64 Long deadline,
        @Uint64 Long period) {

    public Scheduler {
        flags = Frozen.list(flags);
    }
}
