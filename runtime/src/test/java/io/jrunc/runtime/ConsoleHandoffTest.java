package io.jrunc.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrunc.bindings.FileDescriptors;
import io.jrunc.bindings.UnixSockets;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The console handoff with real sockets on the host: the runtime's side is played here (a connect and
 * one sendmsg with the descriptor, or nothing at all). A runtime that never sends must not hold the
 * agent's call, and with it the process the runtime made, for ever.
 */
class ConsoleHandoffTest {
    @TempDir
    Path dir;

    @Test
    void aPairWhoseRuntimeNeverSendsGivesUpAfterTheLimit() {
        try (ConsoleHandoff console = ConsoleHandoff.pair()) {
            // the production limit, with room: it must end, and say what did not come
            IllegalStateException e = assertTimeoutPreemptively(ConsoleHandoff.LIMIT.plusSeconds(10),
                    () -> assertThrows(IllegalStateException.class, console::receiveMaster));
            assertTrue(e.getMessage().contains("sent no terminal within"), e.getMessage());
        }
    }

    @Test
    void aListenerNobodyConnectsToGivesUpAfterTheLimit() throws Exception {
        try (ConsoleHandoff console = ConsoleHandoff.listener(dir, "c.e")) {
            long t0 = System.nanoTime();
            IllegalStateException e = assertTimeoutPreemptively(Duration.ofSeconds(10),
                    () -> assertThrows(IllegalStateException.class, () -> console.receiveMaster(Duration.ofMillis(300))));
            assertTrue(e.getMessage().contains("sent no terminal within 300 ms"), e.getMessage());
            assertTrue(System.nanoTime() - t0 >= 300_000_000L);
        }
    }

    @Test
    void aConnectionThatSendsNothingGivesUpAfterTheLimitToo() throws Exception {
        try (ConsoleHandoff console = ConsoleHandoff.listener(dir, "c.e")) {
            int client = UnixSockets.connect(console.path().toString());
            try {
                IllegalStateException e = assertTimeoutPreemptively(Duration.ofSeconds(10),
                        () -> assertThrows(IllegalStateException.class, () -> console.receiveMaster(Duration.ofMillis(300))));
                assertTrue(e.getMessage().contains("within 300 ms"), e.getMessage());
            } finally {
                FileDescriptors.closeQuietly(client);
            }
        }
    }

    @Test
    void aMasterSentInTimeIsReceivedAndTheSocketGoesWithClose() throws Exception {
        Path file = Files.writeString(dir.resolve("master"), "the master");
        Path socket;
        try (ConsoleHandoff console = ConsoleHandoff.listener(dir, "c.e")) {
            socket = console.path();
            int client = UnixSockets.connect(socket.toString());
            int fd = FileDescriptors.open(file.toString(), FileDescriptors.O_RDONLY | FileDescriptors.O_CLOEXEC);
            try {
                UnixSockets.sendWithFd(client, "/dev/pts/0".getBytes(StandardCharsets.UTF_8), fd);
            } finally {
                FileDescriptors.close(fd);
                FileDescriptors.close(client);
            }
            int master = console.receiveMaster(Duration.ofSeconds(5));
            try {
                byte[] buffer = new byte[32];
                assertEquals("the master", new String(buffer, 0, FileDescriptors.read(master, buffer, 32), StandardCharsets.UTF_8));
            } finally {
                FileDescriptors.close(master);
            }
        }
        assertFalse(Files.exists(socket));
    }

    @Test
    void aRuntimeThatHangsUpWithoutSendingIsAnErrorAtOnce() {
        try (ConsoleHandoff console = ConsoleHandoff.pair()) {
            FileDescriptors.close(console.runtimeEnd());
            long t0 = System.nanoTime();
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> console.receiveMaster(Duration.ofSeconds(5)));
            assertEquals("the runtime sent no terminal", e.getMessage());
            assertTrue(System.nanoTime() - t0 < 4_000_000_000L);
        }
    }
}
