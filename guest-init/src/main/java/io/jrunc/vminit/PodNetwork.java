package io.jrunc.vminit;

import io.jrunc.agent.api.pb.v1.InterfaceConfig;
import io.jrunc.agent.api.pb.v1.NetworkConfig;
import io.jrunc.agent.api.pb.v1.RouteConfig;
import io.jrunc.bindings.Errno;
import io.jrunc.bindings.ErrnoException;
import io.jrunc.bindings.Rtnetlink;
import io.jrunc.ttrpc.Code;
import io.jrunc.ttrpc.RpcException;
import java.net.InetAddress;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The pod's network in the guest, set through rtnetlink (the bindings' {@link Rtnetlink}; the image
 * has no {@code ip}): lo up, then each interface the host names, found by its hardware address
 * (virtio-net takes the MAC qemu was given; the kernel's name for it is whatever probing order gave),
 * renamed if needed, its MTU, addresses and up, then the routes. Containers share it: their network
 * namespace is dropped from their spec, so they run in the agent's. Idempotent: what is already
 * there (EEXIST) is kept, so a repeated Configure is harmless.
 */
final class PodNetwork {
    /** How long an interface may take to appear: virtio_net is loaded at boot, before the host calls. */
    private static final long WAIT_MILLIS = 10_000;

    private PodNetwork() {
    }

    static void apply(NetworkConfig network) throws RpcException {
        try (Rtnetlink rt = Rtnetlink.open()) {
            Rtnetlink.Link lo = rt.link("lo");
            if (!lo.up()) {
                rt.setUp(lo.index(), true);
            }
            Map<String, Integer> byName = new HashMap<>();
            for (InterfaceConfig i : network.getInterfacesList()) {
                Rtnetlink.Link link = await(rt, i.getMac());
                if (!i.getName().isEmpty() && !i.getName().equals(link.name())) {
                    if (link.up()) {
                        rt.setUp(link.index(), false);
                    }
                    rt.rename(link.index(), i.getName());
                }
                if (i.getMtu() > 0 && i.getMtu() != link.mtu()) {
                    rt.setMtu(link.index(), i.getMtu());
                }
                for (String cidr : i.getAddressesList()) {
                    Prefix p = Prefix.parse(cidr, "interfaces.addresses");
                    existing(() -> rt.addAddress(link.index(), p.address(), p.length()));
                }
                rt.setUp(link.index(), true);
                byName.put(i.getName().isEmpty() ? link.name() : i.getName(), link.index());
                Console.log("network: " + (i.getName().isEmpty() ? link.name() : i.getName()) + " " + i.getMac() + " "
                        + String.join(" ", i.getAddressesList()) + (i.getMtu() > 0 ? " mtu " + i.getMtu() : ""));
            }
            for (RouteConfig r : network.getRoutesList()) {
                Integer index = byName.get(r.getInterface());
                if (index == null) {
                    throw new RpcException(Code.INVALID_ARGUMENT, "routes: no configured interface " + r.getInterface());
                }
                Prefix dst = r.getDestination().isEmpty() ? null : Prefix.parse(r.getDestination(), "routes.destination");
                InetAddress gateway = r.getGateway().isEmpty() ? null : Prefix.address(r.getGateway(), "routes.gateway");
                existing(() -> rt.addRoute(dst == null ? null : dst.address(), dst == null ? 0 : dst.length(), gateway, index));
                Console.log("network: route " + (dst == null ? "default" : r.getDestination())
                        + (gateway == null ? "" : " via " + r.getGateway()) + " dev " + r.getInterface());
            }
        } catch (ErrnoException e) {
            throw new RpcException(Code.INTERNAL, "network: " + e.getMessage());
        }
    }

    private static Rtnetlink.Link await(Rtnetlink rt, String mac) throws RpcException {
        long deadline = System.currentTimeMillis() + WAIT_MILLIS;
        while (true) {
            Optional<Rtnetlink.Link> link = rt.links().stream().filter(l -> l.mac().equalsIgnoreCase(mac)).findFirst();
            if (link.isPresent()) {
                return link.get();
            }
            if (System.currentTimeMillis() > deadline) {
                throw new RpcException(Code.NOT_FOUND, "network: no interface with hardware address " + mac);
            }
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new RpcException(Code.CANCELLED, "network: interrupted");
            }
        }
    }

    /** Runs a change; one the kernel already has (EEXIST) is fine. */
    private static void existing(Runnable change) {
        try {
            change.run();
        } catch (ErrnoException e) {
            if (e.errno() != Errno.EEXIST) {
                throw e;
            }
        }
    }

    /** An address with its prefix length ("10.0.2.15/24"; without a length, the whole address). */
    record Prefix(InetAddress address, int length) {
        static Prefix parse(String cidr, String field) throws RpcException {
            int slash = cidr.indexOf('/');
            InetAddress a = address(slash < 0 ? cidr : cidr.substring(0, slash), field);
            int max = a.getAddress().length * 8;
            int length;
            try {
                length = slash < 0 ? max : Integer.parseInt(cidr.substring(slash + 1));
            } catch (NumberFormatException e) {
                throw new RpcException(Code.INVALID_ARGUMENT, field + ": bad prefix length in " + cidr);
            }
            if (length < 0 || length > max) {
                throw new RpcException(Code.INVALID_ARGUMENT, field + ": bad prefix length in " + cidr);
            }
            return new Prefix(a, length);
        }

        static InetAddress address(String text, String field) throws RpcException {
            try {
                return InetAddress.ofLiteral(text);
            } catch (IllegalArgumentException e) {
                throw new RpcException(Code.INVALID_ARGUMENT, field + ": not an IP address: " + text);
            }
        }
    }
}
