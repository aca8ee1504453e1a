package io.jrunc.cgroups;

import io.jrunc.spec.LinuxBlockIO;
import io.jrunc.spec.LinuxResources;
import java.util.List;
import java.util.Map;

/**
 * The OCI records keep absent lists and maps as null (so they round-trip); resource code treats absent
 * and empty alike, so it works on a copy where they are empty.
 */
final class AbsentAsEmpty {
    private AbsentAsEmpty() {
    }

    static LinuxResources of(LinuxResources r) {
        if (r == null) {
            return new LinuxResources(List.of(), null, null, null, null, List.of(), null, Map.of(), Map.of());
        }
        return new LinuxResources(list(r.devices()), r.memory(), r.cpu(), r.pids(), of(r.blockIO()),
                list(r.hugepageLimits()), r.network(), r.rdma() == null ? Map.of() : r.rdma(),
                r.unified() == null ? Map.of() : r.unified());
    }

    static LinuxBlockIO of(LinuxBlockIO io) {
        if (io == null) {
            return null;
        }
        return new LinuxBlockIO(io.weight(), io.leafWeight(), list(io.weightDevice()), list(io.throttleReadBpsDevice()),
                list(io.throttleWriteBpsDevice()), list(io.throttleReadIOPSDevice()), list(io.throttleWriteIOPSDevice()));
    }

    private static <T> List<T> list(List<T> values) {
        return values == null ? List.of() : values;
    }
}
