package io.jrunc.vm.qemu;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.InputStream;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * A client of qemu's QMP (docs/interop/qmp-spec in qemu): JSON objects over a Unix socket. qemu greets
 * with {"QMP": ...}; nothing but qmp_capabilities is accepted until that is sent; then each command
 * answers {"return": ...} or {"error": {"class", "desc"}}, in order, with asynchronous {"event": ...}
 * objects anywhere in between. One command at a time; a reader thread splits answers from events.
 * qemu's QMP socket takes one client at a time, as its other socket chardevs do.
 */
public final class QmpClient implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final JsonNode CLOSED = JSON.createObjectNode().put("closed", true);

    private final SocketChannel channel;
    private final BlockingQueue<JsonNode> answers = new LinkedBlockingQueue<>();
    private final List<JsonNode> events = new ArrayList<>();
    private final Duration timeout;

    /** A QMP command answered with an error, or a socket that closed or stayed silent. */
    public static final class QmpException extends IOException {
        public QmpException(String message) {
            super(message);
        }
    }

    private QmpClient(SocketChannel channel, Duration timeout) {
        this.channel = channel;
        this.timeout = timeout;
    }

    /** Connects, reads the greeting and negotiates capabilities. */
    public static QmpClient connect(Path socket, Duration timeout) throws IOException {
        SocketChannel channel = SocketChannel.open(StandardProtocolFamily.UNIX);
        try {
            channel.connect(UnixDomainSocketAddress.of(socket));
        } catch (IOException e) {
            channel.close();
            throw e;
        }
        QmpClient client = new QmpClient(channel, timeout);
        Thread.ofPlatform().daemon().name("qmp-reader").start(client::readLoop);
        try {
            JsonNode greeting = client.next();
            if (!greeting.has("QMP")) {
                throw new QmpException("not a QMP greeting: " + greeting);
            }
            client.execute("qmp_capabilities", null);
            return client;
        } catch (IOException | RuntimeException e) {
            client.close();
            throw e;
        }
    }

    private void readLoop() {
        try (InputStream in = Channels.newInputStream(channel);
             MappingIterator<JsonNode> it = JSON.readerFor(JsonNode.class).readValues(in)) {
            while (it.hasNextValue()) {
                JsonNode message = it.nextValue();
                if (message.has("event")) {
                    synchronized (events) {
                        events.add(message);
                        events.notifyAll();
                    }
                } else {
                    answers.add(message);
                }
            }
        } catch (IOException | RuntimeException e) {
            // the socket closed (qemu exited, or close()): callers learn it from CLOSED below
        } finally {
            answers.add(CLOSED);
            synchronized (events) {
                events.add(CLOSED);
                events.notifyAll();
            }
        }
    }

    private JsonNode next() throws IOException {
        try {
            JsonNode answer = answers.poll(timeout.toMillis(), TimeUnit.MILLISECONDS);
            if (answer == null) {
                throw new QmpException("qemu did not answer on QMP within " + timeout.toSeconds() + " s");
            }
            if (answer == CLOSED) {
                answers.add(CLOSED);
                throw new QmpException("qemu closed the QMP socket");
            }
            return answer;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new QmpException("interrupted waiting for qemu");
        }
    }

    /** Runs a command and returns its "return" value; an {"error"} answer throws with qemu's desc. */
    public synchronized JsonNode execute(String command, ObjectNode arguments) throws IOException {
        ObjectNode request = JSON.createObjectNode().put("execute", command);
        if (arguments != null) {
            request.set("arguments", arguments);
        }
        ByteBuffer bytes = ByteBuffer.wrap((JSON.writeValueAsString(request) + "\n").getBytes(StandardCharsets.UTF_8));
        try {
            while (bytes.hasRemaining()) {
                channel.write(bytes);
            }
        } catch (IOException e) {
            throw new QmpException("qemu closed the QMP socket (" + command + " not sent: " + e + ")");
        }
        JsonNode answer = next();
        if (answer.has("error")) {
            throw new QmpException(command + ": " + answer.path("error").path("desc").asText(answer.toString()));
        }
        return answer.path("return");
    }

    public static ObjectNode args() {
        return JSON.createObjectNode();
    }

    /** query-status: "running", "paused", "prelaunch", "shutdown", ... */
    public String status() throws IOException {
        return execute("query-status", null).path("status").asText();
    }

    /**
     * Attaches an image read-only as a SCSI disk with this serial on the VM's virtio-scsi controller
     * ({@link QemuCommand#DISK_CONTROLLER}; qemu picks a free target): a blockdev node and a device,
     * both named by the serial. The guest reads the serial from the disk's VPD page 0x80.
     */
    public void attachDisk(String serial, Path image) throws IOException {
        attach(serial, image, false);
    }

    /**
     * Attaches an image read-write, as {@link #attachDisk} does read-only: the host's page cache with
     * the guest's flushes honoured (blockdev's default, writeback), and the guest's discards turned
     * into holes in the file ({@code discard: unmap} on the node, {@code discard} on the device).
     */
    public void attachWritableDisk(String serial, Path image) throws IOException {
        attach(serial, image, true);
    }

    private void attach(String serial, Path image, boolean writable) throws IOException {
        ObjectNode blockdev = args().put("driver", "raw").put("node-name", serial).put("read-only", !writable);
        if (writable) {
            blockdev.put("discard", "unmap");
        }
        blockdev.putObject("file").put("driver", "file").put("filename", image.toString()).put("read-only", !writable);
        execute("blockdev-add", blockdev);
        try {
            // scsi-hd reports UNMAP to the guest when its node discards (discard: unmap above)
            execute("device_add", args().put("driver", "scsi-hd").put("bus", QemuCommand.DISK_CONTROLLER + ".0")
                    .put("id", serial).put("drive", serial).put("serial", serial));
        } catch (IOException e) {
            try {
                execute("blockdev-del", args().put("node-name", serial));
            } catch (IOException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
    }

    /**
     * Unplugs the disk: device_del, DEVICE_DELETED when qemu let the device go (a SCSI disk at once,
     * telling the guest by a virtio-scsi event; a PCI device only once the guest's ACPI released it,
     * which {@code wait} bounds), then the blockdev node. Only a
     * device qemu has is waited for: one it does not know (never attached, or a hot-plug cut short
     * after blockdev-add) answers device_del with "not found", and then only its blockdev node, if
     * any, is deleted, at once.
     */
    public void detachDisk(String serial, Duration wait) throws IOException {
        detachDisks(List.of(serial), wait);
    }

    /**
     * Unplugs the disks as {@link #detachDisk} does one, together: every device_del first, then the
     * waits for their DEVICE_DELETED within one {@code wait}, then the blockdev nodes, so that the
     * guest releases them at once (a container's image and writable layer: 55 ms each under TCG when
     * one followed the other). A failure is thrown after the others' unplugs were still seen through.
     */
    public void detachDisks(List<String> serials, Duration wait) throws IOException {
        int seen = eventCount();
        List<String> present = new ArrayList<>();
        IOException failure = null;
        for (String serial : serials) {
            try {
                execute("device_del", args().put("id", serial));
                present.add(serial);
            } catch (QmpException e) {
                if (!e.getMessage().contains("not found")) {
                    failure = first(failure, e);
                }
            }
        }
        long deadline = System.nanoTime() + wait.toNanos();
        List<String> released = new ArrayList<>();
        for (String serial : present) {
            Duration left = Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
            if (awaitEvent(seen, ev -> "DEVICE_DELETED".equals(ev.path("event").asText())
                    && serial.equals(ev.path("data").path("device").asText()), left)) {
                released.add(serial);
            } else {
                failure = first(failure, new QmpException("the guest did not release disk " + serial + " within "
                        + wait.toSeconds() + " s"));
            }
        }
        for (String serial : serials) {
            if (present.contains(serial) && !released.contains(serial)) {
                continue; // still the device's: deleting the node under it would fail
            }
            try {
                execute("blockdev-del", args().put("node-name", serial));
            } catch (QmpException e) {
                // "Failed to find node with node-name=...": no node, nothing to delete
                if (present.contains(serial) || !e.getMessage().contains("Failed to find")) {
                    failure = first(failure, e);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    private static IOException first(IOException failure, IOException e) {
        if (failure == null) {
            return e;
        }
        failure.addSuppressed(e);
        return failure;
    }

    /**
     * Hot-plugs a vhost-user-fs device for a virtiofsd listening on {@code socket}: a socket chardev
     * (qemu connects as the client) and the device, both with the id {@code tag}, the guest mounting
     * it by that tag, on the VM's share bridge ({@link QemuCommand#SHARE_BUS}). qemu negotiates with
     * virtiofsd during device_add, so a virtiofsd that is not there fails here. The VM's memory must be
     * shared (QemuCommand's memfd backend).
     */
    public void attachShare(String tag, Path socket) throws IOException {
        ObjectNode chardev = args().put("id", tag);
        ObjectNode data = chardev.putObject("backend").put("type", "socket").putObject("data");
        data.put("server", false).putObject("addr").put("type", "unix").putObject("data").put("path", socket.toString());
        execute("chardev-add", chardev);
        try {
            execute("device_add", args().put("driver", "vhost-user-fs-pci").put("bus", QemuCommand.SHARE_BUS)
                    .put("id", tag).put("chardev", tag).put("tag", tag));
        } catch (IOException e) {
            try {
                execute("chardev-remove", args().put("id", tag));
            } catch (IOException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
    }

    /**
     * Unplugs a share: device_del, waiting for the guest to release it (DEVICE_DELETED), then the
     * chardev. A device or chardev qemu does not have (never attached, or a hot-plug cut short) is not
     * waited for.
     */
    public void detachShare(String tag, Duration wait) throws IOException {
        int seen = eventCount();
        boolean present = true;
        try {
            execute("device_del", args().put("id", tag));
        } catch (QmpException e) {
            if (!e.getMessage().contains("not found")) {
                throw e;
            }
            present = false;
        }
        if (present && !awaitEvent(seen, ev -> "DEVICE_DELETED".equals(ev.path("event").asText())
                && tag.equals(ev.path("data").path("device").asText()), wait)) {
            throw new QmpException("the guest did not release shared directory " + tag + " within " + wait.toSeconds() + " s");
        }
        try {
            execute("chardev-remove", args().put("id", tag));
        } catch (QmpException e) {
            if (present || !e.getMessage().contains("not found")) {
                throw e;
            }
        }
    }

    public int eventCount() {
        synchronized (events) {
            return events.size();
        }
    }

    /** Waits for an event after the first {@code from} ones that matches; false on timeout. */
    public boolean awaitEvent(int from, Predicate<JsonNode> match, Duration wait) throws QmpException {
        long deadline = System.nanoTime() + wait.toNanos();
        synchronized (events) {
            int i = from;
            while (true) {
                for (; i < events.size(); i++) {
                    JsonNode ev = events.get(i);
                    if (ev == CLOSED) {
                        throw new QmpException("qemu closed the QMP socket");
                    }
                    if (match.test(ev)) {
                        return true;
                    }
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                try {
                    events.wait(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new QmpException("interrupted waiting for a QMP event");
                }
            }
        }
    }

    /**
     * Stops the VM and writes its devices' state to {@code file} (qemu's migration to a command,
     * {@code cat}), leaving out the memory mapped shared (x-ignore-shared): a template's RAM and agent
     * root are files that stay where they are (QemuCommand.TemplateMemory). Returns once qemu says
     * the migration completed; the VM stays stopped.
     */
    public void saveState(Path file, Duration wait) throws IOException {
        ignoreSharedMemory();
        execute("stop", null);
        execute("migrate", args().put("uri", "exec:cat > " + shellQuoted(file)));
        awaitMigration("saving the VM's state", wait);
    }

    /**
     * Loads a state {@link #saveState} wrote into a qemu started with {@code -incoming defer} and the
     * same machine, devices and memory files, then lets the VM run on from where it was saved (it was
     * saved stopped, and a loaded VM keeps the run state it was saved in).
     */
    public void loadState(Path file, Duration wait) throws IOException {
        ignoreSharedMemory();
        execute("migrate-incoming", args().put("uri", "exec:cat " + shellQuoted(file)));
        awaitMigration("loading the VM's state", wait);
        execute("cont", null);
    }

    private void ignoreSharedMemory() throws IOException {
        ObjectNode capability = args().put("capability", "x-ignore-shared").put("state", true);
        ObjectNode arguments = args();
        arguments.putArray("capabilities").add(capability);
        execute("migrate-set-capabilities", arguments);
    }

    private void awaitMigration(String what, Duration wait) throws IOException {
        long deadline = System.nanoTime() + wait.toNanos();
        while (true) {
            JsonNode info;
            try {
                info = execute("query-migrate", null);
            } catch (QmpException e) {
                throw new QmpException(what + ": " + e.getMessage()); // qemu exits when a load fails
            }
            switch (info.path("status").asText()) {
                case "completed":
                    return;
                case "failed", "cancelled":
                    throw new QmpException(what + ": " + info.path("error-desc").asText(info.path("status").asText()));
                default:
                    if (System.nanoTime() > deadline) {
                        throw new QmpException(what + ": not done within " + wait.toSeconds() + " s");
                    }
                    try {
                        Thread.sleep(10);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        throw new QmpException("interrupted " + what);
                    }
            }
        }
    }

    /** A path as one word of the shell line qemu's exec: migration runs. */
    static String shellQuoted(Path file) {
        return "'" + file.toString().replace("'", "'\\''") + "'";
    }

    public void quit() throws IOException {
        try {
            execute("quit", null);
        } catch (QmpException e) {
            // qemu may close the socket before its answer is read
            if (!e.getMessage().contains("closed")) {
                throw e;
            }
        }
    }

    public void powerdown() throws IOException {
        execute("system_powerdown", null);
    }

    @Override
    public void close() {
        try {
            channel.close();
        } catch (IOException ignored) {
            // nothing to do about a socket that will not close
        }
    }
}
