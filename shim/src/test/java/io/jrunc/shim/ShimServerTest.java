package io.jrunc.shim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrunc.testsupport.Requirements;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The serving shim's lifetime: a shared shim (the host back end's default) stays while it has a
 * connection, a task or a recent touch of its socket, and ends {@code linger} after the last, removing
 * its socket, pid file and empty log but never a socket file that is no longer its own; {@code [host]}'s sharing
 * settings and their refusals; the probe a member's start makes.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class ShimServerTest {
    @TempDir
    Path dir;
    private Path socket;

    @BeforeEach
    void root() {
        Requirements.requireRoot("the host back end reaps and mounts as root");
        socket = dir.resolve("s").resolve("0123456789abcdef0123");
    }

    private ShimOptions options(int lingerSeconds) throws ShimOptions.OptionsException {
        return ShimOptions.parse("[host]\nroot = \"" + dir.resolve("root") + "\"\nlinger = " + lingerSeconds + "\n", "test");
    }

    /** A shared shim serving on its own thread; the future completes when serve returns. */
    private CompletableFuture<Boolean> serve(ShimOptions options) throws Exception {
        ShimServer server = new ShimServer(socket, "default", "unix://" + dir.resolve("no-events.sock"), options,
                ShimSharing.of(options));
        CompletableFuture<Boolean> served = new CompletableFuture<>();
        Thread.ofPlatform().start(() -> {
            try {
                served.complete(server.serve());
            } catch (Exception e) {
                served.completeExceptionally(e);
            }
        });
        Path pid = ShimSharing.Files.of(options, socket).pid();
        assertTrue(eventually(10_000, () -> ShimSockets.answers(socket, 1000) && Files.exists(pid)), "the shim did not come up");
        assertEquals(ProcessHandle.current().pid() + "\n", Files.readString(pid));
        return served;
    }

    @Test
    void aSharedShimEndsLingerAfterItsLastConnectionAndRemovesItsSocketAndPidFile() throws Exception {
        ShimOptions options = options(1);
        Path log = ShimSharing.Files.of(options, socket).log();
        Files.createDirectories(log.getParent());
        Files.write(log, new byte[0]); // as start opens it for the shim's stderr
        CompletableFuture<Boolean> served = serve(options);
        try (SocketChannel held = SocketChannel.open(UnixDomainSocketAddress.of(socket))) {
            Thread.sleep(2_500); // past the linger, with a connection open
            assertFalse(served.isDone(), "a shim with an open connection ended");
            assertTrue(ShimSockets.answers(socket, 1000));
        }
        long closed = System.nanoTime();
        assertTrue(served.get(10, TimeUnit.SECONDS), "serve did not return");
        assertTrue(System.nanoTime() - closed >= 900_000_000L, "ended before its linger");
        assertFalse(Files.exists(socket), "socket left");
        assertFalse(Files.exists(ShimSharing.Files.of(options, socket).pid()), "pid file left");
        assertFalse(Files.exists(log), "an empty log left");
    }

    /** The launcher's fast start touches the socket: a touched shim stays. */
    @Test
    void aTouchOfTheSocketKeepsTheSharedShim() throws Exception {
        CompletableFuture<Boolean> served = serve(options(2));
        for (int i = 0; i < 8; i++) {
            Files.setLastModifiedTime(socket, FileTime.from(Instant.now()));
            Thread.sleep(500);
        }
        assertFalse(served.isDone(), "a shim whose socket was touched every 0.5 s ended within 4 s");
        assertTrue(served.get(10, TimeUnit.SECONDS));
        assertFalse(Files.exists(socket));
    }

    /** A later shim of the same socket bound a new file there: the ending one leaves it alone. */
    @Test
    void anEndingShimLeavesASocketFileThatIsNotItsOwn() throws Exception {
        CompletableFuture<Boolean> served = serve(options(1));
        Files.delete(socket);
        try (ServerSocketChannel other = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            other.bind(UnixDomainSocketAddress.of(socket));
            assertTrue(served.get(10, TimeUnit.SECONDS));
            assertTrue(Files.exists(socket), "the other shim's socket was removed");
        }
    }

    @Test
    void theProbeNeedsAnAnswerNotJustAConnect() throws Exception {
        assertFalse(ShimSockets.answers(dir.resolve("absent"), 100));
        Files.createDirectories(socket.getParent());
        try (ServerSocketChannel silent = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            silent.bind(UnixDomainSocketAddress.of(socket));
            assertTrue(ShimSockets.alive(socket));
            assertFalse(ShimSockets.answers(socket, 300), "a listener that never answers counted as a shim");
        }
    }

    @Test
    void sharingSettings() throws Exception {
        assertEquals(ShimSharing.DEFAULT, ShimSharing.of(ShimOptions.DEFAULTS));
        assertEquals(new ShimSharing(false, ShimSharing.DEFAULT_LINGER),
                ShimSharing.of(ShimOptions.parse("[host]\nshim = \"pod\"\n", "t")));
        assertEquals(new ShimSharing(true, Duration.ofSeconds(5)), ShimSharing.of(ShimOptions.parse("[host]\nlinger = 5\n", "t")));
        assertFalse(ShimSharing.of(ShimOptions.parse("backend = \"vm\"\n", "t")).shared());
        assertEquals("@jrunc-host", ShimSharing.DEFAULT.group("c1", java.util.Map.of(Grouping.SANDBOX_ID_ANNOTATION, "pod")));
        assertEquals("pod", new ShimSharing(false, Duration.ZERO).group("c1", java.util.Map.of(Grouping.SANDBOX_ID_ANNOTATION, "pod")));
        ShimOptions.OptionsException shim = assertThrows(ShimOptions.OptionsException.class,
                () -> ShimOptions.parse("[host]\nshim = \"container\"\n", "t"));
        assertEquals("runtime options: host.shim must be \"shared\" or \"pod\", not \"container\"", shim.getMessage());
        for (String bad : new String[] {"0", "-1", "\"x\"", "86401"}) {
            ShimOptions.OptionsException e = assertThrows(ShimOptions.OptionsException.class,
                    () -> ShimOptions.parse("[host]\nlinger = " + bad + "\n", "t"));
            assertTrue(e.getMessage().startsWith("runtime options: host.linger must be a number of seconds"), e.getMessage());
        }
    }

    private static boolean eventually(long millis, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + millis * 1_000_000;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                return false;
            }
            Thread.sleep(50);
        }
        return true;
    }
}
