package io.jrunc.spec;

import java.util.List;
import java.util.Map;

/**
 * Linux-specific configuration (config-linux.md; Go type {@code specs.Linux}).
 *
 * @param netDevices keyed by the device's name on the host (spec 1.3).
 * @param memoryPolicy NUMA policy for set_mempolicy(2) (spec 1.3).
 * @param timeOffsets keyed by clock: {@code monotonic} or {@code boottime}.
 */
public record Linux(
        List<LinuxIDMapping> uidMappings,
        List<LinuxIDMapping> gidMappings,
        Map<String, String> sysctl,
        LinuxResources resources,
        String cgroupsPath,
        List<LinuxNamespace> namespaces,
        List<LinuxDevice> devices,
        Map<String, LinuxNetDevice> netDevices,
        LinuxSeccomp seccomp,
        String rootfsPropagation,
        List<String> maskedPaths,
        List<String> readonlyPaths,
        String mountLabel,
        LinuxIntelRdt intelRdt,
        LinuxMemoryPolicy memoryPolicy,
        LinuxPersonality personality,
        Map<String, LinuxTimeOffset> timeOffsets) {

    public Linux {
        uidMappings = Frozen.list(uidMappings);
        gidMappings = Frozen.list(gidMappings);
        sysctl = Frozen.map(sysctl);
        namespaces = Frozen.list(namespaces);
        devices = Frozen.list(devices);
        netDevices = Frozen.map(netDevices);
        maskedPaths = Frozen.list(maskedPaths);
        readonlyPaths = Frozen.list(readonlyPaths);
        timeOffsets = Frozen.map(timeOffsets);
    }
}
