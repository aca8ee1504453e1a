package io.jrunc.vm.state;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import java.util.List;
import java.util.Map;

/**
 * A pod's state file (ROOT/pods/NAME/pod.json): what it was created with, and what its VM booted.
 * Whether the VM runs is not stored here but asked of the monitor and qemu: a state file can be stale.
 *
 * @param anonymous    made for a container that named no pod; removed with that container
 * @param memoryBytes  the pod's memory (what its containers have); the VM gets more (QemuCommand)
 * @param qemuPid      0 when no VM was started; with qemuStartedAt it identifies qemu even after a
 *                     reboot reused the pid
 * @param bootedDigest the VM image's digest at the last boot ("unknown" without a digest file)
 * @param swapBytes    the pod's swap area (a sparse file made afresh at every boot, docs/vm.md); 0: none
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record PodRecord(
        String name,
        boolean anonymous,
        int cpus,
        long memoryBytes,
        String hostname,
        List<String> dns,
        List<String> addHosts,
        Map<String, String> sysctls,
        String kernel,
        String initrd,
        long createdAt,
        long qemuPid,
        long qemuStartedAt,
        String bootedDigest,
        long swapBytes) {

    /** A pod without a swap area. */
    public PodRecord(String name, boolean anonymous, int cpus, long memoryBytes, String hostname, List<String> dns,
                     List<String> addHosts, Map<String, String> sysctls, String kernel, String initrd, long createdAt,
                     long qemuPid, long qemuStartedAt, String bootedDigest) {
        this(name, anonymous, cpus, memoryBytes, hostname, dns, addHosts, sysctls, kernel, initrd, createdAt, qemuPid,
                qemuStartedAt, bootedDigest, 0);
    }

    public PodRecord {
        dns = dns == null ? List.of() : List.copyOf(dns);
        addHosts = addHosts == null ? List.of() : List.copyOf(addHosts);
        sysctls = sysctls == null ? Map.of() : Map.copyOf(sysctls);
    }

    public PodRecord withVm(long pid, long startedAt, String digest) {
        return new PodRecord(name, anonymous, cpus, memoryBytes, hostname, dns, addHosts, sysctls, kernel, initrd,
                createdAt, pid, startedAt, digest, swapBytes);
    }

    public PodRecord withSwap(long bytes) {
        return new PodRecord(name, anonymous, cpus, memoryBytes, hostname, dns, addHosts, sysctls, kernel, initrd,
                createdAt, qemuPid, qemuStartedAt, bootedDigest, bytes);
    }
}
