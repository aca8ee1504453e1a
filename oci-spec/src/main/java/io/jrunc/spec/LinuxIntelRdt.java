package io.jrunc.spec;

import java.util.List;

/**
 * Intel RDT (resctrl) class of service and monitoring (config-linux.md, IntelRdt).
 * Carries both the 1.2 members ({@code enableCMT}, {@code enableMBM}) and the 1.3 ones ({@code schemata},
 * {@code enableMonitoring}).
 */
public record LinuxIntelRdt(
        String closID,
        List<String> schemata,
        String l3CacheSchema,
        String memBwSchema,
        Boolean enableCMT,
        Boolean enableMBM,
        Boolean enableMonitoring) {

    public LinuxIntelRdt {
        schemata = Frozen.list(schemata);
    }
}
