package io.jrunc.bindings;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** eventfd and poll over several descriptors, on the real kernel. */
class EventFdsTest {
    @Test
    void aSignalWakesPollOnTheRightDescriptorAndDrainResetsIt() throws Exception {
        int quiet = EventFds.create();
        int woken = EventFds.create();
        try {
            int[] fds = {quiet, woken};
            short[] events = {FileDescriptors.POLLIN, FileDescriptors.POLLIN};
            short[] revents = new short[2];
            assertEquals(0, FileDescriptors.poll(fds, events, revents, 50), "nothing signalled yet");
            assertEquals(0, EventFds.drain(woken), "a counter at 0 drains as 0 (EAGAIN)");

            Thread signaller = Thread.ofPlatform().start(() -> {
                sleep(100);
                EventFds.signal(woken);
                EventFds.signal(woken);
            });
            assertEquals(1, FileDescriptors.poll(fds, events, revents, 10_000));
            signaller.join();
            assertEquals(0, revents[0]);
            assertEquals(FileDescriptors.POLLIN, revents[1]);
            assertEquals(2, EventFds.drain(woken), "both signals counted");
            assertEquals(0, FileDescriptors.poll(fds, events, revents, 0), "drained: nothing to read");
        } finally {
            FileDescriptors.close(quiet);
            FileDescriptors.close(woken);
        }
    }

    @Test
    void anEventFdIsCloseOnExec() throws Exception {
        int fd = EventFds.create();
        try {
            String flags = Files.readString(Path.of("/proc/self/fdinfo/" + fd));
            long value = Long.parseLong(flags.lines().filter(l -> l.startsWith("flags:")).findFirst().orElseThrow()
                    .substring("flags:".length()).strip(), 8);
            assertTrue((value & FileDescriptors.O_CLOEXEC) != 0, flags);
            assertTrue((value & FileDescriptors.O_NONBLOCK) != 0, flags);
        } finally {
            FileDescriptors.close(fd);
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
