package io.jrunc.seccomp;

import java.util.List;

/**
 * A profile compiled for loading: the program, and the SECCOMP_FILTER_FLAG_* bits to pass to
 * seccomp(2) (linux/seccomp.h values; NEW_LISTENER included when a rule uses SCMP_ACT_NOTIFY), and
 * the profile's names that libseccomp 2.5.4 does not know on any architecture, in the profile's order
 * (runc skips them, logging each at debug level).
 */
public record CompiledFilter(Program program, int flags, boolean usesNotify, List<String> unknownNames) {
    public CompiledFilter {
        unknownNames = List.copyOf(unknownNames);
    }

    public static final int FLAG_TSYNC = 1, FLAG_LOG = 2, FLAG_SPEC_ALLOW = 4, FLAG_NEW_LISTENER = 8,
            FLAG_TSYNC_ESRCH = 16, FLAG_WAIT_KILLABLE_RECV = 32;
}
