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
        Console console = runOnConsole(sb, b, "tty; echo hello");
        List<String> lines = console.out().lines().map(String::strip).toList();
        assertEquals(List.of(console.name(), "hello"), lines.subList(0, 2), "tty output: " + console.out());
        assertTrue(console.out().contains("\r\n"), "the pty translates newlines: " + console.out());
    }

    /**
     * With a user namespace the pty is the container's: its slave belongs to the container's root and
     * the devpts tty group as the container sees them (runc's owner: its init opens the pty as the
     * container's root), not to an id the container cannot name.
     */
    @Test
    void aPtyInAUserNamespaceBelongsToTheProcess(Sandbox sb) throws Exception {
        Bundle b = UserNamespaceTest.withUserNamespace(sb.bundle().terminal(true).user(1000, 1000), 0, 100000, 65536);
        String out = runOnConsole(sb, b, "echo \"owner $(stat -c %u:%g $(tty))\"; echo \"mode $(stat -c %a $(tty))\"; "
                + "echo hello").out();
        List<String> lines = out.lines().map(String::strip).toList();
        assertTrue(lines.contains("owner 0:5"), "the slave's owner inside: " + out);
        assertTrue(lines.contains("mode 620"), "the slave's mode: " + out);
    }

    /**
     * Creates the bundle's container with --console-socket, checks the pty master and its name come
     * back as go-runc's protocol sends them, starts it and returns the pty's name and what it printed up
     * to "hello" (the script's last line), then lets the container end and deletes it.
     */
    private static Console runOnConsole(Sandbox sb, Bundle b, String script) throws Exception {
        Path shared = b.shared();
        b.sh(script + "; echo ready > /shared/ready; while [ ! -e /shared/go ]; do sleep 0.05; done");
        Files.setPosixFilePermissions(shared, java.nio.file.attribute.PosixFilePermissions.fromString("rwxrwxrwx"));
        String id = sb.id("tty");
        Path socket = sb.file("console.sock");
        int listener = UnixSockets.listen(socket.toString());
        int master = -1;
        String name;
        String out;
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
            name = new String(r.data(), StandardCharsets.UTF_8);
            assertTrue(name.matches("/dev/pts/\\d+"), "pty name: " + name);

            sb.jrunc().run("start", id).ok();
            Wait.forFile(shared.resolve("ready"));
            out = readUntil(master, "hello");
        } finally {
            FileDescriptors.closeQuietly(listener);
            FileDescriptors.closeQuietly(master);
        }
        Files.writeString(shared.resolve("go"), "");
        long pid = sb.jrunc().state(id).get("pid").asLong();
        sb.sawPid(pid);
        Wait.forExit(pid);
        sb.jrunc().run("delete", id).ok();
        return new Console(name, out);
    }

    private record Console(String name, String out) {}

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
