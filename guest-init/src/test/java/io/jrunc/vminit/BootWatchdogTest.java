package io.jrunc.vminit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

class BootWatchdogTest {
    @Test
    void aBootNotReadyInTimeSaysWhereEveryThreadIsInJavaAndInTheKernel() throws Exception {
        CountDownLatch never = new CountDownLatch(1);
        Thread stuck = Thread.ofPlatform().daemon().name("stuck-in-boot").start(() -> {
            try {
                never.await();
            } catch (InterruptedException ignored) {
                // the test's end
            }
        });
        String out = console(() -> {
            BootWatchdog.start(Duration.ofMillis(100));
            Thread.sleep(1500);
        });
        stuck.interrupt();
        assertTrue(out.contains("not ready 0 s after main(): where each thread is"), out);
        assertTrue(out.contains("thread \"stuck-in-boot\" WAITING"), out);
        assertTrue(out.contains("java.util.concurrent.CountDownLatch.await("), out);
        // the kernel's side: this JVM's tasks, each with where it waits (futex_wait for a parked thread)
        assertTrue(out.lines().anyMatch(l -> l.matches(".*task \\d+ \\(stuck-in-boot\\) waits in \\S+")), out);
    }

    @Test
    void aBootReadyInTimeSaysNothing() throws Exception {
        String out = console(() -> {
            BootWatchdog.start(Duration.ofMillis(300)).ready();
            Thread.sleep(600);
        });
        assertEquals("", out);
    }

    interface Body {
        void run() throws Exception;
    }

    private static String console(Body body) throws Exception {
        PrintStream saved = System.out;
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        System.setOut(new PrintStream(bytes, true, StandardCharsets.UTF_8));
        try {
            body.run();
        } finally {
            System.setOut(saved);
        }
        return bytes.toString(StandardCharsets.UTF_8);
    }
}
