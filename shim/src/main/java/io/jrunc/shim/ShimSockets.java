package io.jrunc.shim;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;

/** Whether a shim's socket has a live shim behind it. */
public final class ShimSockets {
    private ShimSockets() {
    }

    /** True when something accepts connections at {@code socket} (a connect succeeds). */
    public static boolean alive(Path socket) {
        if (!Files.exists(socket)) {
            return false;
        }
        try (SocketChannel channel = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            channel.connect(UnixDomainSocketAddress.of(socket));
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
