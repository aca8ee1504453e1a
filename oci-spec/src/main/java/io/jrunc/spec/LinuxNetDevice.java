package io.jrunc.spec;

/**
 * A host network device moved into the container (config-linux.md, Network Devices, spec 1.3).
 *
 * @param name name inside the container; absent means keep the host name.
 */
public record LinuxNetDevice(
        String name) {
}
