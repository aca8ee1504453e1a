package io.jrunc.spec;

/** The runtime-spec versions this module reads and writes. */
public final class SpecVersion {

    /**
     * The version written into new documents ({@link DefaultSpec}, states) and reported as the supported
     * maximum. The model also carries the few members spec 1.3 added (netDevices, memoryPolicy, intelRdt
     * schemata/enableMonitoring) so such configs round-trip, but it does not claim 1.3.
     */
    public static final String CURRENT = "1.2.1";

    /** The oldest version accepted, as runc reports in {@code features}. */
    public static final String MINIMUM = "1.0.0";

    private SpecVersion() {
    }
}
