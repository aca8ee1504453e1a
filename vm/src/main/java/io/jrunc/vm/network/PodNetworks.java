package io.jrunc.vm.network;

import io.jrunc.agent.api.pb.v1.InterfaceConfig;
import io.jrunc.agent.api.pb.v1.NetworkConfig;
import io.jrunc.agent.api.pb.v1.RouteConfig;
import io.jrunc.vm.VmException;
import io.jrunc.vm.state.PodRecord;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * A pod's network from `pod create`'s flags to qemu's command line and the agent's Configure.
 *
 * <p>The default, "user": one virtio-net interface backed by qemu's user-mode network (libslirp): no
 * root, nothing made on the host, outbound traffic NATed through the host's own sockets. Its
 * addresses are slirp's fixed ones: the guest {@value #USER_ADDRESS}/24, the gateway (the host as the
 * guest sees it) {@value #USER_GATEWAY}, the resolver {@value #USER_DNS} (slirp forwards it to the
 * host's). Published ports are its {@code hostfwd} rules. "none": lo alone.
 */
public final class PodNetworks {
    public static final String USER = "user", NONE = "none", NS_PREFIX = "ns:";
    public static final String USER_NET = "10.0.2.0/24", USER_ADDRESS = "10.0.2.15", USER_GATEWAY = "10.0.2.2",
            USER_DNS = "10.0.2.3";
    /** libslirp's MTU (IF_MTU_DEFAULT). */
    public static final int USER_MTU = 1500;
    /** The guest's name for its interface. */
    public static final String GUEST_INTERFACE = "eth0";
    private static final SecureRandom RANDOM = new SecureRandom();

    private PodNetworks() {
    }

    /**
     * Validates `--network`, `--publish`, `--dns-search` and `--dns-option` and makes the pod's network:
     * nothing is touched but the bound-and-released check of each published host port.
     *
     * @param mode null: "user"
     */
    public static PodRecord.Network make(String mode, List<String> publish, List<String> dnsSearch, List<String> dnsOptions)
            throws VmException {
        String m = mode == null ? USER : mode;
        List<PublishedPort> ports = new ArrayList<>();
        for (String p : publish) {
            ports.add(PublishedPort.parse(p));
        }
        for (String s : dnsSearch) {
            if (!s.matches("[A-Za-z0-9.\\-]{1,253}")) {
                throw new VmException("invalid --dns-search \"" + s + "\": not a domain name");
            }
        }
        for (String o : dnsOptions) {
            if (!o.matches("[A-Za-z0-9_.:\\-]{1,64}")) {
                throw new VmException("invalid --dns-option \"" + o + "\": expected a resolv.conf option such as ndots:2");
            }
        }
        PodRecord.Network network;
        if (m.equals(USER)) {
            network = new PodRecord.Network(USER, ports.stream().map(PublishedPort::toString).toList(), dnsSearch, dnsOptions,
                    randomMac(), List.of(USER_ADDRESS + "/24"), USER_GATEWAY, USER_MTU);
        } else if (m.equals(NONE) || m.startsWith(NS_PREFIX)) {
            if (!ports.isEmpty()) {
                throw new VmException("--publish needs --network user: with --network " + m + " no port of the host reaches the pod");
            }
            if (m.startsWith(NS_PREFIX)) {
                NamespaceLink.requireNamespace(m.substring(NS_PREFIX.length()));
            }
            network = new PodRecord.Network(m, List.of(), dnsSearch, dnsOptions, m.equals(NONE) ? "" : randomMac(), List.of(), "", 0);
        } else {
            throw new VmException("invalid --network \"" + m + "\": expected user, none or ns:PATH");
        }
        requirePortsFree(network);
        return network;
    }

    public static void requirePortsFree(PodRecord.Network network) throws VmException {
        List<String> seen = new ArrayList<>();
        for (String p : network.publish()) {
            PublishedPort port = PublishedPort.parse(p);
            String key = port.hostPort() + "/" + port.protocol();
            if (seen.contains(key)) {
                throw new VmException("--publish " + p + ": host port " + key + " is published twice");
            }
            seen.add(key);
            port.requireFree();
        }
    }

    /** A locally administered unicast address in qemu's range (52:54:00:...), random per pod. */
    static String randomMac() {
        byte[] tail = new byte[3];
        RANDOM.nextBytes(tail);
        return "52:54:00:" + HexFormat.ofDelimiter(":").formatHex(tail);
    }

    /** qemu's arguments for the pod's network device (none for "none"). */
    public static List<String> qemuArgs(PodRecord.Network network, String tapName) throws VmException {
        if (network.mode().equals(NONE)) {
            return List.of();
        }
        String netdev;
        if (network.mode().equals(USER)) {
            StringBuilder b = new StringBuilder("user,id=net0,net=" + USER_NET + ",host=" + USER_GATEWAY + ",dns=" + USER_DNS
                    + ",ipv6=off");
            for (String p : network.publish()) {
                b.append(',').append(PublishedPort.parse(p).hostfwd(USER_ADDRESS));
            }
            netdev = b.toString();
        } else {
            // the tap in the pod's namespace, opened by name: qemu is started in that namespace
            netdev = "tap,id=net0,ifname=" + tapName + ",script=no,downscript=no,vhost=off";
        }
        return List.of("-netdev", netdev, "-device", "virtio-net-pci,netdev=net0,mac=" + network.mac());
    }

    /** The agent's Configure of the network: the interface with its addresses and MTU, the default route. */
    public static NetworkConfig guestConfig(PodRecord.Network network) {
        NetworkConfig.Builder b = NetworkConfig.newBuilder();
        if (network.mode().equals(NONE) || network.mac().isEmpty()) {
            return b.build();
        }
        b.addInterfaces(InterfaceConfig.newBuilder().setMac(network.mac()).setName(GUEST_INTERFACE)
                .addAllAddresses(network.addresses()).setMtu(network.mtu()));
        if (!network.gateway().isEmpty()) {
            b.addRoutes(RouteConfig.newBuilder().setGateway(network.gateway()).setInterface(GUEST_INTERFACE));
        }
        return b.build();
    }

    /** The resolver when the pod names none: user-mode's forwarder; none for the other modes. */
    public static List<String> defaultNameservers(PodRecord.Network network) {
        return network.mode().equals(USER) ? List.of(USER_DNS) : List.of();
    }

    /** The pod's own address for /etc/hosts (without its prefix length), or null. */
    public static String ownAddress(PodRecord.Network network) {
        return network.addresses().isEmpty() ? null : network.addresses().getFirst().replaceAll("/.*", "");
    }
}
