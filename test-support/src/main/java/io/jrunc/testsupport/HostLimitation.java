package io.jrunc.testsupport;

import org.junit.jupiter.api.Assumptions;

/**
 * A test this host cannot run for a reason no package or build step can change: the kernel's
 * configuration (no IA-32 emulation, no blkio weight file), its cgroup layout, the CPU architecture.
 * The test is skipped, in CI too, with its reason after {@link #PREFIX}: scripts/test-report.java lists
 * such skips as allowed and fails a CI run on any other skip. What a build or a package can provide is
 * a {@link Requirements requirement} instead.
 */
public final class HostLimitation {
    /** How a skip's reason starts when it is a host limitation. */
    public static final String PREFIX = "host limitation: ";

    private HostLimitation() {}

    /** Skips the test: this host cannot run it, for {@code reason}. */
    public static void skip(String reason) {
        Assumptions.abort(PREFIX + reason);
    }

    /** Skips the test unless {@code possible}. */
    public static void skipUnless(boolean possible, String reason) {
        if (!possible) {
            skip(reason);
        }
    }
}
