package io.jrunc.vm.state;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonUnwrapped;
import java.util.List;
import java.util.Map;

/**
 * A pod's state file (ROOT/pods/NAME/pod.json): what it was created with ({@link Config}), and what
 * its last VM was ({@link Vm}). Whether the VM runs is not stored here but asked of the monitor and
 * qemu: a state file can be stale.
 *
 * <p>The parts are unwrapped in the file: pod.json is one flat object (cpus, memoryBytes, ...,
 * qemuPid, bootedDigest), as every version of jrunc-vm writes and reads it. Fields a version does not
 * know are ignored, and fields it misses take their defaults.
 *
 * @param anonymous made for a container that named no pod; removed with that container
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record PodRecord(String name, boolean anonymous, long createdAt, @JsonUnwrapped Config config, @JsonUnwrapped Vm vm) {

    public PodRecord {
        config = config == null ? Config.DEFAULT : config;
        vm = vm == null ? Vm.NONE : vm;
    }

    /** A pod that has not booted yet. */
    public static PodRecord created(String name, boolean anonymous, Config config) {
        return new PodRecord(name, anonymous, System.currentTimeMillis(), config, Vm.NONE);
    }

    public PodRecord withVm(Vm booted) {
        return new PodRecord(name, anonymous, createdAt, config, booted);
    }

    /**
     * What the pod was created with; it never changes after.
     *
     * @param memoryBytes the pod's memory (what its containers have); the VM gets more (QemuCommand)
     * @param hostname    null: the pod's name
     * @param kernel      null with initrd: the installed VM image
     * @param swapBytes   the pod's swap area (a sparse file made afresh at every boot, docs/vm.md); 0: none
     */
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Config(int cpus, long memoryBytes, String hostname, List<String> dns, List<String> addHosts,
                         Map<String, String> sysctls, String kernel, String initrd, long swapBytes) {
        /** What a file without these fields means: one CPU, no memory recorded, nothing else. */
        static final Config DEFAULT = new Config(1, 0, null, List.of(), List.of(), Map.of(), null, null, 0);

        public Config {
            dns = dns == null ? List.of() : List.copyOf(dns);
            addHosts = addHosts == null ? List.of() : List.copyOf(addHosts);
            sysctls = sysctls == null ? Map.of() : Map.copyOf(sysctls);
        }

        /** A pod of this many CPUs and bytes, with its hostname and nothing else set. */
        public static Config of(int cpus, long memoryBytes, String hostname) {
            return new Config(cpus, memoryBytes, hostname, List.of(), List.of(), Map.of(), null, null, 0);
        }

        public Config withSwap(long bytes) {
            return new Config(cpus, memoryBytes, hostname, dns, addHosts, sysctls, kernel, initrd, bytes);
        }

        public Config withImage(String kernelFile, String initrdFile) {
            return new Config(cpus, memoryBytes, hostname, dns, addHosts, sysctls, kernelFile, initrdFile, swapBytes);
        }
    }

    /**
     * The pod's last VM: qemu's pid and start time (together they identify qemu even after a reboot
     * reused the pid) and the image digest it booted.
     *
     * @param qemuPid      0 when no VM was ever started
     * @param bootedDigest the VM image's digest at the last boot ("unknown" without a digest file)
     */
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Vm(long qemuPid, long qemuStartedAt, String bootedDigest) {
        public static final Vm NONE = new Vm(0, 0, null);

        public boolean everBooted() {
            return qemuPid != 0;
        }
    }
}
