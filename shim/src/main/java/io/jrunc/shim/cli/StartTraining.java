package io.jrunc.shim.cli;

import io.jrunc.shim.ShimAddress;
import io.jrunc.shim.ShimSharing;
import io.jrunc.ttrpc.Dispatcher;
import io.jrunc.ttrpc.ServerOptions;
import io.jrunc.ttrpc.TtrpcServer;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The training run of the AOT cache for {@code start} (the Makefile runs it under -XX:AOTCacheOutput):
 * group members' starts (the JVM's path: a probe of the shim's socket), against a socket of
 * this process's own (a fresh containerd address, so no real shim's hash is ever touched) and a bundle
 * in a temporary directory; both are removed at the end.
 */
public final class StartTraining {
    private StartTraining() {
    }

    public static void main(String[] args) throws IOException {
        Path work = Files.createTempDirectory("jrunc-shim-training-");
        String address = work.resolve("containerd.sock").toString();
        Path socket = ShimAddress.socketPath(address, "training", ShimSharing.SHARED_GROUP);
        Files.createDirectories(socket.getParent());
        Path bundle = Files.createDirectories(work.resolve("bundle"));
        Files.writeString(bundle.resolve("config.json"), "{\"ociVersion\":\"1.0.2\",\"process\":{\"args\":[\"sh\"],"
                + "\"env\":[\"PATH=/bin\"],\"cwd\":\"/\"},\"root\":{\"path\":\"rootfs\"},"
                + "\"annotations\":{\"io.kubernetes.cri.sandbox-id\":\"pod\",\"io.kubernetes.cri.container-type\":\"container\"}}");
        PrintStream nowhere = new PrintStream(OutputStream.nullOutputStream());
        int failures = 0;
        // a shim that answers the members' probe (every request UNIMPLEMENTED)
        try (ServerSocketChannel listener = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
             TtrpcServer server = new TtrpcServer(new Dispatcher(), ServerOptions.DEFAULTS)) {
            listener.bind(UnixDomainSocketAddress.of(socket));
            Thread.ofVirtual().start(() -> {
                try {
                    server.serveConnections(listener);
                } catch (IOException ignored) {
                    // closed at the end
                }
            });
            for (int i = 0; i < 20; i++) {
                System.setIn(new ByteArrayInputStream(new byte[0]));
                failures += StartCommand.run(ShimFlags.parse(List.of("-namespace", "training", "-address", address,
                        "-publish-binary", "/usr/bin/containerd", "-id", "c" + i, "start")), bundle, nowhere);
            }
        } catch (ShimFlags.UsageException | io.jrunc.shim.ShimOptions.OptionsException e) {
            throw new IllegalStateException(e);
        } finally {
            Files.deleteIfExists(socket);
            Files.deleteIfExists(bundle.resolve("address"));
            Files.deleteIfExists(bundle.resolve(StartCommand.OPTIONS_FILE));
            Files.deleteIfExists(bundle.resolve("config.json"));
            Files.deleteIfExists(bundle);
            Files.deleteIfExists(work);
        }
        if (failures != 0) {
            throw new IllegalStateException("a training start failed");
        }
    }
}
