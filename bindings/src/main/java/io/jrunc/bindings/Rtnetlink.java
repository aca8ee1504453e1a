package io.jrunc.bindings;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

/**
 * The network configuration of one network namespace (the one its {@link Netlink} socket was opened
 * in) through rtnetlink: links (up, MTU, name, removal), IPv4 and IPv6 addresses, routes, and the
 * traffic control a tap needs to be joined to another interface (an ingress qdisc and a u32 filter
 * that matches every frame, whose mirred action redirects it: u32 rather than matchall because
 * kernels built without CONFIG_NET_CLS_MATCHALL, this machine's among them, still have u32). What {@code ip link}, {@code ip addr},
 * {@code ip route} and {@code tc} do, as typed calls. Values from include/uapi/linux/rtnetlink.h,
 * if_link.h, if_addr.h, pkt_sched.h, pkt_cls.h and tc_act/tc_mirred.h (Linux 6.1).
 */
public final class Rtnetlink implements AutoCloseable {
    public static final int RTM_NEWLINK = 16, RTM_DELLINK = 17, RTM_GETLINK = 18, RTM_NEWADDR = 20, RTM_GETADDR = 22,
            RTM_NEWROUTE = 24, RTM_GETROUTE = 26, RTM_NEWQDISC = 36, RTM_DELQDISC = 37, RTM_NEWTFILTER = 44;
    public static final int AF_UNSPEC = 0, AF_INET = 2, AF_INET6 = 10;
    public static final int IFF_UP = 0x1, IFF_LOOPBACK = 0x8;
    public static final int IFLA_ADDRESS = 1, IFLA_IFNAME = 3, IFLA_MTU = 4;
    public static final int IFA_ADDRESS = 1, IFA_LOCAL = 2;
    public static final int RTA_DST = 1, RTA_OIF = 4, RTA_GATEWAY = 5, RTA_TABLE = 15;
    public static final int RT_TABLE_MAIN = 254, RTPROT_BOOT = 3, RT_SCOPE_UNIVERSE = 0, RT_SCOPE_LINK = 253,
            RT_SCOPE_HOST = 254, RTN_UNICAST = 1;
    public static final int TCA_KIND = 1, TCA_OPTIONS = 2, TCA_U32_SEL = 5, TCA_U32_ACT = 7, TC_U32_TERMINAL = 1,
            TCA_ACT_KIND = 1, TCA_ACT_OPTIONS = 2, TCA_MIRRED_PARMS = 2, TC_ACT_STOLEN = 4, TCA_EGRESS_REDIR = 1;
    /** TC_H_INGRESS, and the ingress qdisc's handle ffff:. */
    public static final int TC_H_INGRESS = 0xFFFFFFF1, INGRESS_HANDLE = 0xFFFF0000;
    /** ETH_P_ALL (every protocol), which a filter's info carries in network byte order. */
    public static final int ETH_P_ALL = 0x0003;
    /** struct ifinfomsg, ifaddrmsg, rtmsg, tcmsg; struct tc_mirred. */
    static final int IFINFOMSG_SIZE = 16, IFADDRMSG_SIZE = 8, RTMSG_SIZE = 12, TCMSG_SIZE = 20, TC_MIRRED_SIZE = 28;
    /** struct tc_u32_sel (16 bytes) followed by one struct tc_u32_key (16 bytes). */
    static final int TC_U32_SEL_SIZE = 16, TC_U32_KEY_SIZE = 16;

    private final Netlink socket;

    private Rtnetlink(Netlink socket) {
        this.socket = socket;
    }

    /** The network namespace of the calling thread. */
    public static Rtnetlink open() {
        return new Rtnetlink(Netlink.open());
    }

    /** An interface: index, name, IFF_* flags, MTU and hardware address ("52:54:00:12:34:56", or ""). */
    public record Link(int index, String name, int flags, int mtu, String mac) {
        public boolean up() {
            return (flags & IFF_UP) != 0;
        }

        public boolean loopback() {
            return (flags & IFF_LOOPBACK) != 0;
        }
    }

    /** An address of an interface, with its prefix length. */
    public record Address(int index, InetAddress address, int prefixLength) {
        @Override
        public String toString() {
            return address.getHostAddress() + "/" + prefixLength;
        }
    }

    /**
     * A route of the main table: destination (null: the default route) and prefix length, gateway
     * (null: on link), outgoing interface index (0: none named).
     */
    public record Route(int family, InetAddress destination, int prefixLength, InetAddress gateway, int index) {
        public boolean isDefault() {
            return destination == null && prefixLength == 0;
        }
    }

    public List<Link> links() {
        List<Link> out = new ArrayList<>();
        for (Netlink.Message m : socket.request(RTM_GETLINK, Netlink.NLM_F_DUMP, ifinfo(0, 0, 0).bytes(), "RTM_GETLINK")) {
            if (m.type() != RTM_NEWLINK) {
                continue;
            }
            ByteBuffer b = m.body();
            Map<Integer, ByteBuffer> a = Netlink.attributes(b, IFINFOMSG_SIZE);
            out.add(new Link(b.getInt(4), a.containsKey(IFLA_IFNAME) ? Netlink.string(a.get(IFLA_IFNAME)) : "",
                    b.getInt(8), a.containsKey(IFLA_MTU) ? a.get(IFLA_MTU).getInt(0) : 0,
                    a.containsKey(IFLA_ADDRESS) ? mac(Netlink.bytes(a.get(IFLA_ADDRESS))) : ""));
        }
        return out;
    }

    public Link link(String name) {
        return links().stream().filter(l -> l.name().equals(name)).findFirst()
                .orElseThrow(() -> new ErrnoException("netlink", Errno.ENODEV, "link " + name));
    }

    /** Sets a link up or down. */
    public void setUp(int index, boolean up) {
        socket.request(RTM_NEWLINK, 0, ifinfo(index, up ? IFF_UP : 0, IFF_UP).bytes(),
                "RTM_NEWLINK " + (up ? "up" : "down") + " on link " + index);
    }

    public void setMtu(int index, int mtu) {
        socket.request(RTM_NEWLINK, 0, ifinfo(index, 0, 0).attribute(IFLA_MTU, mtu).bytes(), "RTM_NEWLINK mtu " + mtu + " on link " + index);
    }

    /** Renames a link (it must be down). */
    public void rename(int index, String name) {
        socket.request(RTM_NEWLINK, 0, ifinfo(index, 0, 0).attribute(IFLA_IFNAME, name).bytes(),
                "RTM_NEWLINK name " + name + " on link " + index);
    }

    public void deleteLink(int index) {
        socket.request(RTM_DELLINK, 0, ifinfo(index, 0, 0).bytes(), "RTM_DELLINK link " + index);
    }

    /** Adds an address; one the link has already is EEXIST. */
    public void addAddress(int index, InetAddress address, int prefixLength) {
        int family = family(address);
        Netlink.Body body = new Netlink.Body().u8(family).u8(prefixLength).u8(0).u8(RT_SCOPE_UNIVERSE).u32(index)
                .attribute(IFA_LOCAL, address.getAddress()).attribute(IFA_ADDRESS, address.getAddress());
        socket.request(RTM_NEWADDR, Netlink.NLM_F_CREATE | Netlink.NLM_F_EXCL, body.bytes(),
                "RTM_NEWADDR " + address.getHostAddress() + "/" + prefixLength + " on link " + index);
    }

    public List<Address> addresses() {
        List<Address> out = new ArrayList<>();
        for (Netlink.Message m : socket.request(RTM_GETADDR, Netlink.NLM_F_DUMP, new Netlink.Body().u8(AF_UNSPEC)
                .u8(0).u8(0).u8(0).u32(0).bytes(), "RTM_GETADDR")) {
            ByteBuffer b = m.body();
            Map<Integer, ByteBuffer> a = Netlink.attributes(b, IFADDRMSG_SIZE);
            ByteBuffer value = a.containsKey(IFA_LOCAL) ? a.get(IFA_LOCAL) : a.get(IFA_ADDRESS);
            if (value != null) {
                out.add(new Address(b.getInt(4), address(value), Byte.toUnsignedInt(b.get(1))));
            }
        }
        return out;
    }

    /**
     * Adds a route to the main table: {@code destination} null is the default route; {@code gateway}
     * null a route on link (scope link) through {@code index}.
     */
    public void addRoute(InetAddress destination, int prefixLength, InetAddress gateway, int index) {
        InetAddress any = destination != null ? destination : gateway;
        int family = any != null ? family(any) : AF_INET;
        Netlink.Body body = new Netlink.Body().u8(family).u8(destination == null ? 0 : prefixLength).u8(0).u8(0)
                .u8(RT_TABLE_MAIN).u8(RTPROT_BOOT).u8(gateway == null ? RT_SCOPE_LINK : RT_SCOPE_UNIVERSE).u8(RTN_UNICAST).u32(0);
        if (destination != null) {
            body.attribute(RTA_DST, destination.getAddress());
        }
        if (gateway != null) {
            body.attribute(RTA_GATEWAY, gateway.getAddress());
        }
        if (index > 0) {
            body.attribute(RTA_OIF, index);
        }
        socket.request(RTM_NEWROUTE, Netlink.NLM_F_CREATE | Netlink.NLM_F_EXCL, body.bytes(), "RTM_NEWROUTE "
                + (destination == null ? "default" : destination.getHostAddress() + "/" + prefixLength)
                + (gateway == null ? "" : " via " + gateway.getHostAddress()) + " on link " + index);
    }

    /** The main table's unicast routes of both families. */
    public List<Route> routes() {
        List<Route> out = new ArrayList<>();
        for (Netlink.Message m : socket.request(RTM_GETROUTE, Netlink.NLM_F_DUMP,
                new Netlink.Body().u8(AF_UNSPEC).u8(0).u8(0).u8(0).u8(0).u8(0).u8(0).u8(0).u32(0).bytes(), "RTM_GETROUTE")) {
            ByteBuffer b = m.body();
            Map<Integer, ByteBuffer> a = Netlink.attributes(b, RTMSG_SIZE);
            int table = a.containsKey(RTA_TABLE) ? a.get(RTA_TABLE).getInt(0) : Byte.toUnsignedInt(b.get(4));
            if (table != RT_TABLE_MAIN || b.get(7) != RTN_UNICAST) {
                continue;
            }
            out.add(new Route(b.get(0), a.containsKey(RTA_DST) ? address(a.get(RTA_DST)) : null, Byte.toUnsignedInt(b.get(1)),
                    a.containsKey(RTA_GATEWAY) ? address(a.get(RTA_GATEWAY)) : null,
                    a.containsKey(RTA_OIF) ? a.get(RTA_OIF).getInt(0) : 0));
        }
        return out;
    }

    /** An ingress qdisc (handle ffff:) on a link: where its filters see every frame it receives. */
    public void addIngressQdisc(int index) {
        socket.request(RTM_NEWQDISC, Netlink.NLM_F_CREATE | Netlink.NLM_F_EXCL,
                tcmsg(index, INGRESS_HANDLE, TC_H_INGRESS, 0).attribute(TCA_KIND, "ingress").bytes(),
                "RTM_NEWQDISC ingress on link " + index);
    }

    /** Removes the ingress qdisc of a link, and its filters with it. */
    public void deleteIngressQdisc(int index) {
        socket.request(RTM_DELQDISC, 0, tcmsg(index, INGRESS_HANDLE, TC_H_INGRESS, 0).bytes(),
                "RTM_DELQDISC ingress on link " + index);
    }

    /**
     * A u32 filter on {@code from}'s ingress qdisc that matches every frame (one key, mask 0) and whose
     * mirred action redirects it to {@code to}'s egress: {@code tc filter add dev FROM parent ffff:
     * protocol all u32 match u32 0 0 action mirred egress redirect dev TO}. Two of them, one each way,
     * join a tap to an interface.
     */
    public void redirectIngress(int from, int to) {
        // tcm_info: priority 1 in the upper half, the protocol (ETH_P_ALL) in network byte order below
        int protocol = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN
                ? Short.toUnsignedInt(Short.reverseBytes((short) ETH_P_ALL)) : ETH_P_ALL;
        byte[] selector = ByteBuffer.allocate(TC_U32_SEL_SIZE + TC_U32_KEY_SIZE).order(ByteOrder.nativeOrder())
                .put(0, (byte) TC_U32_TERMINAL).put(2, (byte) 1).array(); // flags, nkeys 1; the key all zero
        byte[] parms = ByteBuffer.allocate(TC_MIRRED_SIZE).order(ByteOrder.nativeOrder())
                .putInt(0).putInt(0).putInt(TC_ACT_STOLEN).putInt(0).putInt(0).putInt(TCA_EGRESS_REDIR).putInt(to).array();
        Netlink.Body body = tcmsg(from, 0, INGRESS_HANDLE, (1 << 16) | protocol).attribute(TCA_KIND, "u32")
                .begin(TCA_OPTIONS).attribute(TCA_U32_SEL, selector).begin(TCA_U32_ACT).begin(1)
                .attribute(TCA_ACT_KIND, "mirred").begin(TCA_ACT_OPTIONS).attribute(TCA_MIRRED_PARMS, parms).end()
                .end().end().end();
        socket.request(RTM_NEWTFILTER, Netlink.NLM_F_CREATE | Netlink.NLM_F_EXCL, body.bytes(),
                "RTM_NEWTFILTER u32 redirect from link " + from + " to link " + to);
    }

    @Override
    public void close() {
        socket.close();
    }

    private static Netlink.Body ifinfo(int index, int flags, int change) {
        return new Netlink.Body().u8(AF_UNSPEC).u8(0).u16(0).u32(index).u32(flags).u32(change);
    }

    private static Netlink.Body tcmsg(int index, int handle, int parent, int info) {
        return new Netlink.Body().u8(AF_UNSPEC).u8(0).u16(0).u32(index).u32(handle).u32(parent).u32(info);
    }

    private static int family(InetAddress address) {
        return address instanceof Inet4Address ? AF_INET : AF_INET6;
    }

    private static InetAddress address(ByteBuffer value) {
        try {
            return InetAddress.getByAddress(Netlink.bytes(value));
        } catch (UnknownHostException e) {
            throw new IllegalStateException("netlink: an address of " + value.limit() + " bytes", e);
        }
    }

    static String mac(byte[] address) {
        return HexFormat.ofDelimiter(":").formatHex(address);
    }
}
