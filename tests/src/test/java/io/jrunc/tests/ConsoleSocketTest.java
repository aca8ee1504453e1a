package io.jrunc.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrunc.bindings.ErrnoException;
import io.jrunc.bindings.FileDescriptors;
import io.jrunc.bindings.UnixSockets;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** terminal: true with --console-socket: the caller receives the pty master and its name (go-runc's protocol). */
@ExtendWith(JruncExtension.class)
class ConsoleSocketTest {

    @Test
    void consoleSocketReceivesThePty(Sandbox sb) throws Exception {
        Bundle b = sb.bundle().terminal(true);
        Path shared = b.shared();
        b.sh("tty; echo hello; echo ready > /shared/ready; while [ ! -e /shared/go ]; do sleep 0.05; done");
        String id = sb.id("tty");
        Path socket = sb.file("console.sock");
        int listener = UnixSockets.listen(socket.toString());
        int master = -1;
        try (ExecutorService ex = Executors.newSingleThreadExecutor()) {
            Future<UnixSockets.Received> received = ex.submit(() -> {
                int conn = UnixSockets.accept(listener);
                try {
                    return UnixSockets.receiveWithFd(conn, 4096);
                } finally {
                    FileDescriptors.close(conn);
                }
            });
            sb.jrunc().in(b.dir(), "create", "--console-socket", socket.toString(), id).ok();
            UnixSockets.Received r = received.get(30, TimeUnit.SECONDS);
            master = r.fd();
            assertTrue(master >= 0, "an SCM_RIGHTS descriptor came with the message");
            String name = new String(r.data(), StandardCharsets.UTF_8);
            assertTrue(name.matches("/dev/pts/\\d+"), "pty name: " + name);

            sb.jrunc().run("start", id).ok();
            Wait.forFile(shared.resolve("ready"));
            String out = readUntil(master, "hello");
            List<String> lines = out.lines().map(String::strip).toList();
            assertEquals(List.of(name, "hello"), lines.subList(0, 2), "tty output: " + out);
            assertTrue(out.contains("\r\n"), "the pty translates newlines: " + out);
        } finally {
            FileDescriptors.closeQuietly(listener);
            FileDescriptors.closeQuietly(master);
        }
        Files.writeString(shared.resolve("go"), "");
        long pid = sb.jrunc().state(id).get("pid").asLong();
        sb.sawPid(pid);
        Wait.forExit(pid);
        sb.jrunc().run("delete", id).ok();
    }

    private static String readUntil(int fd, String marker) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] buf = new byte[4096];
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (!out.toString(StandardCharsets.UTF_8).contains(marker)) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("no '" + marker + "' from the pty master, got: " + out);
            }
            if (FileDescriptors.poll(fd, FileDescriptors.POLLIN, 200) == 0) {
                continue;
            }
            int n;
            try {
                n = FileDescriptors.read(fd, buf, buf.length);
            } catch (ErrnoException e) {
                throw new AssertionError("reading the pty master after " + out, e);
            }
            if (n <= 0) {
                break;
            }
            out.write(buf, 0, n);
        }
        return out.toString(StandardCharsets.UTF_8);
    }
}
