package io.jrunc.vminit;

import static org.junit.jupiter.api.Assertions.assertFalse;

import org.junit.jupiter.api.Test;

/** Pod Stats' matching of /proc/swaps entries to the disk's serial. */
class PodServiceTest {
    @Test
    void anAreaListedAsTheRootPathIsNoDiskAndNoFailure() {
        // an area enabled from a container's mount namespace that has gone shows as "/" in /proc/swaps;
        // Stats threw NullPointerException on it, failing every `pod inspect`
        assertFalse(PodService.isDisk("/", "jrunc-swap"));
        assertFalse(PodService.isDisk("/dev/no-such-disk", "jrunc-swap"));
    }
}
