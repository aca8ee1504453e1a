package io.jrunc.vminit;

import io.jrunc.bindings.FileDescriptors;
import io.jrunc.bindings.Vsock;
import io.jrunc.ttrpc.TtrpcServer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.stream.Stream;

/**
 * Where the agent serves its protocol: the virtio-serial port the host named {@value #PORT_NAME}
 * (a host without vhost-vsock, this machine's kind) and AF_VSOCK port {@value #VSOCK_PORT} (where the
 * kernel has a vsock transport). The port never closes: a host client that goes away leaves it open,
 * and the next one resynchronises (docs/protocol.md); while no host is connected the port reads end of
 * file at once, so the agent looks again after a pause.
 */
final class Transports {
    private Transports() {}

    static final String PORT_NAME = "jrunc.agent";
    static final int VSOCK_PORT = 1024;
    private static final Path VIRTIO_PORTS = Path.of("/sys/class/virtio-ports");
    private static final Path PCI_DEVICES = Path.of("/sys/bus/pci/devices");
    /** virtio's PCI vendor, and the virtio-vsock device's ids: transitional and modern (0x1040 + 19). */
    private static final String VIRTIO_VENDOR = "0x1af4";
    private static final Set<String> VSOCK_DEVICES = Set.of("0x1012", "0x1053");

    /** Whether the VM has a virtio-vsock device (vhost-vsock-pci), read from the PCI bus before any driver binds it. */
    static boolean hasVsockDevice() throws IOException {
        if (!Files.isDirectory(PCI_DEVICES)) {
            return false;
        }
        try (Stream<Path> devices = Files.list(PCI_DEVICES)) {
            for (Path device : devices.toList()) {
                if (VIRTIO_VENDOR.equals(Files.readString(device.resolve("vendor")).trim())
                        && VSOCK_DEVICES.contains(Files.readString(device.resolve("device")).trim())) {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * The /dev/vportNpM whose name is {@code name}, or null when none is there after {@code waitMillis}
     * and no port is waiting for its name. A port the host has not named yet (its control message comes
     * through qemu's main loop, which a busy host can hold back for seconds) is waited for as long as it
     * takes: serving vsock alone would leave a host without vhost-vsock nothing to call.
     */
    static Path findPort(String name, long waitMillis) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + waitMillis * 1_000_000;
        boolean told = false;
        while (true) {
            boolean unnamed = false;
            if (Files.isDirectory(VIRTIO_PORTS)) {
                try (Stream<Path> ports = Files.list(VIRTIO_PORTS)) {
                    for (Path port : ports.toList()) {
                        Path nameFile = port.resolve("name");
                        String portName = Files.exists(nameFile) ? Files.readString(nameFile).trim() : "";
                        unnamed |= portName.isEmpty();
                        if (portName.equals(name)) {
                            Path dev = Path.of("/dev", port.getFileName().toString());
                            if (Files.exists(dev)) {
                                return dev;
                            }
                            unnamed = true; // named, its device node still to come
                        }
                    }
                }
            }
            if (System.nanoTime() - deadline >= 0) {
                if (!unnamed) {
                    return null;
                }
                if (!told) {
                    Console.log("no virtio-serial port named %s after %d ms, but a port without its name yet: waiting on",
                            name, waitMillis);
                    told = true;
                }
            }
            Thread.sleep(20);
        }
    }

    /** Serves the port for ever on a platform thread of its own. */
    static void servePort(TtrpcServer server, Path port) {
        Thread.ofPlatform().name("port " + port.getFileName()).daemon(true).start(new PortLoop(server, port));
    }

    /**
     * The port's thread: a class, not a lambda, since it is made before the ready line and the image's
     * cache training never serves a port (a lambda would be spun at run time there).
     */
    private record PortLoop(TtrpcServer server, Path port) implements Runnable {
        @Override
        public void run() {
            while (true) {
                // A raw descriptor, not a FileChannel: a FileChannel's reads and writes share one lock, so
                // a reader blocked on the port would hold every answer back. virtio_console allows one
                // open of a port at a time, so the two directions cannot have a channel each either.
                try (FdStream stream = new FdStream(FileDescriptors.open(port.toString(),
                        FileDescriptors.O_RDWR | FileDescriptors.O_CLOEXEC), false)) {
                    server.servePort(stream);
                } catch (RuntimeException e) {
                    Console.log("port %s: %s", port, e);
                }
                try {
                    Thread.sleep(50); // no host connected: the port reads end of file until one is
                } catch (InterruptedException e) {
                    return;
                }
            }
        }
    }

    /** Listens on AF_VSOCK and serves each connection on a platform thread; returns the listener. */
    static int serveVsock(TtrpcServer server) {
        int listener = Vsock.listen(VSOCK_PORT);
        Thread.ofPlatform().name("vsock accept").daemon(true).start(() -> {
            while (true) {
                int fd;
                try {
                    fd = Vsock.accept(listener);
                } catch (RuntimeException e) {
                    Console.log("vsock accept: %s", e.getMessage());
                    return;
                }
                Thread.ofPlatform().name("vsock " + fd).daemon(true).start(() -> {
                    try (FdStream stream = new FdStream(fd, true)) {
                        server.serveConnection(stream);
                    }
                });
            }
        });
        return listener;
    }
}
