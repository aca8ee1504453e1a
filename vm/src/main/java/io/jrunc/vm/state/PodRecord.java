package io.jrunc.vm.state;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
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
 * @param pooled    an anonymous pod booted ahead for the warm pool ({@code [pool] size}), not yet taken
 *                  by a container; written only when true, so a file without it is a pod never pooled
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record PodRecord(String name, boolean anonymous, long createdAt, @JsonUnwrapped Config config, @JsonUnwrapped Vm vm,
                        @JsonInclude(JsonInclude.Include.NON_DEFAULT) boolean pooled) {

    public PodRecord {
        config = config == null ? Config.DEFAULT : config;
        vm = vm == null ? Vm.NONE : vm;
    }

    /** A pod that is not in the pool. */
    public PodRecord(String name, boolean anonymous, long createdAt, Config config, Vm vm) {
        this(name, anonymous, createdAt, config, vm, false);
    }

    /** A pod that has not booted yet. */
    public static PodRecord created(String name, boolean anonymous, Config config) {
        return new PodRecord(name, anonymous, System.currentTimeMillis(), config, Vm.NONE);
    }

    /** An anonymous pod for the warm pool, not booted yet; its hostname is its name until it is taken. */
    public static PodRecord pooled(String name, Config config) {
        return new PodRecord(name, true, System.currentTimeMillis(), config, Vm.NONE, true);
    }

    public PodRecord withVm(Vm booted) {
        return new PodRecord(name, anonymous, createdAt, config, booted, pooled);
    }

    public PodRecord withConfig(Config changed) {
        return new PodRecord(name, anonymous, createdAt, changed, vm, pooled);
    }

    /** A pooled pod taken by the container {@code hostname} names: out of the pool, with that hostname. */
    public PodRecord taken(String hostname) {
        Config c = config;
        return new PodRecord(name, anonymous, createdAt, new Config(c.cpus(), c.memoryBytes(), hostname, c.dns(), c.addHosts(),
                c.sysctls(), c.kernel(), c.initrd(), c.swapBytes(), c.network()), vm, false);
    }

    /**
     * What the pod was created with; it never changes after, but for a pooled pod's hostname, which
     * is given when a container takes it ({@link #taken}).
     *
     * @param memoryBytes the pod's memory (what its containers have); the VM gets more (QemuCommand)
     * @param hostname    null: the pod's name
     * @param kernel      null with initrd: the installed VM image
     * @param swapBytes   the pod's swap area (a sparse file made afresh at every boot, docs/vm.md); 0: none
     * @param network     the pod's network and resolver ({@link Network}); a file without it: none
     */
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Config(int cpus, long memoryBytes, String hostname, List<String> dns, List<String> addHosts,
                         Map<String, String> sysctls, String kernel, String initrd, long swapBytes,
                         @JsonInclude(value = JsonInclude.Include.CUSTOM, valueFilter = Network.OmitNone.class) Network network) {
        /** What a file without these fields means: one CPU, no memory recorded, nothing else. */
        static final Config DEFAULT = new Config(1, 0, null, List.of(), List.of(), Map.of(), null, null, 0, Network.NONE);

        public Config {
            dns = dns == null ? List.of() : List.copyOf(dns);
            addHosts = addHosts == null ? List.of() : List.copyOf(addHosts);
            sysctls = sysctls == null ? Map.of() : Map.copyOf(sysctls);
            network = network == null ? Network.NONE : network;
        }

        /** A pod of this many CPUs and bytes, with its hostname and nothing else set (no network). */
        public static Config of(int cpus, long memoryBytes, String hostname) {
            return new Config(cpus, memoryBytes, hostname, List.of(), List.of(), Map.of(), null, null, 0, Network.NONE);
        }

        public Config withSwap(long bytes) {
            return new Config(cpus, memoryBytes, hostname, dns, addHosts, sysctls, kernel, initrd, bytes, network);
        }

        public Config withImage(String kernelFile, String initrdFile) {
            return new Config(cpus, memoryBytes, hostname, dns, addHosts, sysctls, kernelFile, initrdFile, swapBytes, network);
        }

        public Config withNetwork(Network net) {
            return new Config(cpus, memoryBytes, hostname, dns, addHosts, sysctls, kernel, initrd, swapBytes, net);
        }
    }

    /**
     * The pod's network (docs/vm.md, "Network"), chosen at create and kept, address included, across
     * `pod stop`/`pod start`.
     *
     * @param mode       "user" (qemu's user-mode network), "none" (lo alone) or "ns:PATH" (a host network
     *                   namespace's interface, joined through a tap)
     * @param publish    the published ports, as {@code HOSTIP:HOSTPORT:CTRPORT/PROTO} ("user" only)
     * @param dnsSearch  resolv.conf's search domains
     * @param dnsOptions resolv.conf's options
     * @param mac        the guest interface's hardware address
     * @param addresses  the guest interface's addresses ("10.0.2.15/24"); for "ns:" those the namespace's
     *                   interface had at the last boot
     * @param gateway    the default route's gateway ("" for none)
     * @param mtu        the guest interface's MTU (0: the driver's)
     */
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Network(String mode, List<String> publish, List<String> dnsSearch, List<String> dnsOptions, String mac,
                          List<String> addresses, String gateway, int mtu) {
        public static final Network NONE = new Network("none", List.of(), List.of(), List.of(), "", List.of(), "", 0);

        /** Jackson's filter: a pod without a network is written as versions before it wrote it (no key). */
        public static final class OmitNone {
            @Override
            public boolean equals(Object value) {
                return value == null || value instanceof Network n && n.isNone();
            }

            @Override
            public int hashCode() {
                return 0;
            }
        }

        public Network {
            mode = mode == null ? "none" : mode;
            publish = publish == null ? List.of() : List.copyOf(publish);
            dnsSearch = dnsSearch == null ? List.of() : List.copyOf(dnsSearch);
            dnsOptions = dnsOptions == null ? List.of() : List.copyOf(dnsOptions);
            mac = mac == null ? "" : mac;
            addresses = addresses == null ? List.of() : List.copyOf(addresses);
            gateway = gateway == null ? "" : gateway;
        }

        /**
         * Equal to {@link #NONE}, written out: a record's own equals is linked at its first call by
         * method handles that no AOT cache holds (ObjectMethods), some ms of a CLI call that prints a pod.
         * Not a property of the record's JSON.
         */
        @com.fasterxml.jackson.annotation.JsonIgnore
        public boolean isNone() {
            return mode.equals("none") && publish.isEmpty() && dnsSearch.isEmpty() && dnsOptions.isEmpty() && mac.isEmpty()
                    && addresses.isEmpty() && gateway.isEmpty() && mtu == 0;
        }

        public Network withInterface(String hwAddress, List<String> cidrs, String gw, int mtuBytes) {
            return new Network(mode, publish, dnsSearch, dnsOptions, hwAddress, cidrs, gw, mtuBytes);
        }
    }

    /**
     * The pod's last VM: qemu's pid and start time (together they identify qemu even after a reboot
     * reused the pid) and the image digest it booted.
     *
     * @param qemuPid      0 when no VM was ever started
     * @param bootedDigest the VM image's digest at the last boot ("unknown" without a digest file)
     * @param restored     the VM was restored from the template (io.jrunc.vm.monitor.PodTemplate), not
     *                     booted: its RAM cannot be shared, so it takes no shared directories; written
     *                     only when true
     */
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Vm(long qemuPid, long qemuStartedAt, String bootedDigest,
                     @JsonInclude(JsonInclude.Include.NON_DEFAULT) boolean restored) {
        public static final Vm NONE = new Vm(0, 0, null);

        /** A booted VM. */
        public Vm(long qemuPid, long qemuStartedAt, String bootedDigest) {
            this(qemuPid, qemuStartedAt, bootedDigest, false);
        }

        public boolean everBooted() {
            return qemuPid != 0;
        }
    }
}
