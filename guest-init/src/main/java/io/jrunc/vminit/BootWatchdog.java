package io.jrunc.vminit;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Says where a boot that does not come up stands. The host gives up on a boot after minutes and then
 * has only the console to say why, so when the agent is not ready a while after main() began, every
 * Java thread's stack and every task's kernel wait ({@code /proc/self/task/N/wchan} and {@code stack})
 * go to the console, once: a thread stuck in Java and one stuck in a system call both show there.
 */
final class BootWatchdog {
    private static final int KERNEL_FRAMES = 12;

    private final CountDownLatch ready = new CountDownLatch(1);

    private BootWatchdog() {
    }

    /** Watches from now: the report comes {@code after} this unless {@link #ready} is called first. */
    static BootWatchdog start(Duration after) {
        BootWatchdog watchdog = new BootWatchdog();
        Thread.ofPlatform().daemon().name("boot-watchdog").start(() -> watchdog.watch(after));
        return watchdog;
    }

    void ready() {
        ready.countDown();
    }

    private void watch(Duration after) {
        try {
            if (ready.await(after.toMillis(), TimeUnit.MILLISECONDS)) {
                return;
            }
        } catch (InterruptedException e) {
            return;
        }
        Console.log("not ready %d s after main(): where each thread is", after.toSeconds());
        for (Map.Entry<Thread, StackTraceElement[]> thread : Thread.getAllStackTraces().entrySet()) {
            Console.log("thread \"%s\" %s", thread.getKey().getName(), thread.getKey().getState());
            for (StackTraceElement frame : thread.getValue()) {
                Console.log("    at %s", frame);
            }
        }
        try (Stream<Path> tasks = Files.list(Path.of("/proc/self/task"))) {
            for (Path task : tasks.sorted().toList()) {
                Console.log("task %s (%s) waits in %s", task.getFileName(), read(task.resolve("comm")), read(task.resolve("wchan")));
                List<String> stack = read(task.resolve("stack")).lines().limit(KERNEL_FRAMES).toList();
                stack.forEach(frame -> Console.log("    %s", frame));
            }
        } catch (IOException | RuntimeException e) {
            Console.log("tasks: %s", e);
        }
    }

    private static String read(Path file) {
        try {
            return Files.readString(file).strip();
        } catch (IOException | RuntimeException e) {
            return "(" + e.getClass().getSimpleName() + ")";
        }
    }
}
