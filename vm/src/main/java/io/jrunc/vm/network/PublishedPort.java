package io.jrunc.vm.network;

import io.jrunc.vm.VmException;
import java.io.IOException;
import java.net.DatagramSocket;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One {@code -p|--publish [HOSTIP:]HOSTPORT:CTRPORT[/tcp|/udp]}: connections to the host's port reach
 * the container's port in the pod (qemu's user-mode network forwards them: {@code hostfwd}). HOSTIP
 * is an IPv4 address of the host, or all of them when absent.
 *
 * @param hostIp "" for every address of the host
 */
public record PublishedPort(String hostIp, int hostPort, int containerPort, String protocol) {
    private static final Pattern FORM = Pattern.compile("(?:([0-9.]+):)?([0-9]+):([0-9]+)(?:/(tcp|udp))?");
    public static final String USAGE = "[HOSTIP:]HOSTPORT:CTRPORT[/tcp|/udp]";

    public static PublishedPort parse(String text) throws VmException {
        Matcher m = FORM.matcher(text);
        if (!m.matches()) {
            String hint = text.matches("[0-9]+(/(tcp|udp))?") ? " (a host port is required: jrunc-vm does not choose one)" : "";
            throw new VmException("invalid --publish \"" + text + "\": expected " + USAGE + hint);
        }
        String ip = m.group(1) == null ? "" : m.group(1);
        if (!ip.isEmpty()) {
            try {
                if (!(InetAddress.ofLiteral(ip) instanceof Inet4Address)) {
                    throw new IllegalArgumentException();
                }
            } catch (IllegalArgumentException e) {
                throw new VmException("invalid --publish \"" + text + "\": " + ip + " is not an IPv4 address");
            }
        }
        return new PublishedPort(ip, port(m.group(2), "host", text), port(m.group(3), "container", text),
                m.group(4) == null ? "tcp" : m.group(4));
    }

    private static int port(String digits, String which, String text) throws VmException {
        int port = digits.length() > 5 ? Integer.MAX_VALUE : Integer.parseInt(digits);
        if (port < 1 || port > 65535) {
            throw new VmException("invalid --publish \"" + text + "\": " + which + " port " + digits + " is not in 1-65535");
        }
        return port;
    }

    /**
     * Fails when the host port is taken: bound here and released at once, so a create is refused
     * before anything is made, and a boot before qemu starts (qemu would only say that a forwarding
     * rule could not be set up).
     */
    @SuppressWarnings("try") // binding is the test
    public void requireFree() throws VmException {
        InetSocketAddress at = hostIp.isEmpty() ? new InetSocketAddress(hostPort) : new InetSocketAddress(hostIp, hostPort);
        try {
            if (protocol.equals("udp")) {
                try (DatagramSocket s = new DatagramSocket(at)) {
                    // bound: free
                }
            } else {
                try (ServerSocket s = new ServerSocket()) {
                    s.setReuseAddress(true); // as qemu binds it: a port left in TIME_WAIT is free
                    s.bind(at);
                }
            }
        } catch (IOException e) {
            throw new VmException("--publish " + this + ": host port " + hostPort + "/" + protocol + " is already in use ("
                    + e.getMessage() + ")");
        }
    }

    /** qemu's {@code hostfwd=} rule to the guest's address. */
    public String hostfwd(String guestAddress) {
        return "hostfwd=" + protocol + ":" + hostIp + ":" + hostPort + "-" + guestAddress + ":" + containerPort;
    }

    @Override
    public String toString() {
        return (hostIp.isEmpty() ? "" : hostIp + ":") + hostPort + ":" + containerPort + "/" + protocol;
    }
}
