package io.jrunc.shim;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * Where a shim listens, by containerd's rule (runtime/v2/shim util_unix.go SocketAddress): the SHA-256
 * of Go's {@code filepath.Join(containerdAddress, namespace, groupId)} in hex, under
 * /run/containerd/s. containerd itself never computes it: the shim's {@code start} prints it. Keeping
 * the rule means one containerd (its address in the hash) never meets another's shims, and a group's
 * members find their shim by the same hash.
 */
public final class ShimAddress {
    private ShimAddress() {
    }

    public static final Path SOCKET_DIR = Path.of("/run/containerd/s");
    private static final String SCHEME = "unix://";

    /** The address {@code start} prints: unix:///run/containerd/s/HEX. */
    public static String of(String containerdAddress, String namespace, String groupId) {
        return SCHEME + socketPath(containerdAddress, namespace, groupId);
    }

    public static Path socketPath(String containerdAddress, String namespace, String groupId) {
        return SOCKET_DIR.resolve(sha256Hex(goJoin(containerdAddress, namespace, groupId)));
    }

    /** The socket path of an address ("unix:///p" or a bare path). */
    public static Path pathOf(String address) {
        return Path.of(address.startsWith(SCHEME) ? address.substring(SCHEME.length()) : address);
    }

    static String sha256Hex(String text) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                    .digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Go's filepath.Join: empty elements dropped, the rest joined by "/" and cleaned. */
    static String goJoin(String... elements) {
        List<String> parts = new ArrayList<>();
        for (String e : elements) {
            if (!e.isEmpty()) {
                parts.add(e);
            }
        }
        return parts.isEmpty() ? "" : goClean(String.join("/", parts));
    }

    /**
     * Go's path.Clean: repeated slashes become one, "." elements go, ".." removes the element before it
     * (and at the root stays at the root), no trailing slash; an empty result is ".".
     */
    static String goClean(String path) {
        boolean rooted = path.startsWith("/");
        List<String> out = new ArrayList<>();
        for (String element : path.split("/")) {
            if (element.isEmpty() || element.equals(".")) {
                continue;
            }
            if (element.equals("..")) {
                if (!out.isEmpty() && !out.getLast().equals("..")) {
                    out.removeLast();
                } else if (!rooted) {
                    out.add("..");
                }
                continue;
            }
            out.add(element);
        }
        String joined = String.join("/", out);
        if (rooted) {
            return "/" + joined;
        }
        return joined.isEmpty() ? "." : joined;
    }
}
