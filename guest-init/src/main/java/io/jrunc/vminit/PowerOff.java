package io.jrunc.vminit;

import io.jrunc.bindings.Machine;
import io.jrunc.bindings.Mounts;
import io.jrunc.bindings.Signals;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The end of the pod: every container stopped (SIGTERM, the grace period, SIGKILL) and reaped, the
 * containers' and the agent's mounts undone (retrying EBUSY), sync, and power off with reboot(2). Runs
 * on a thread of its own after Shutdown has answered, so the host sees the answer before the VM goes.
 */
final class PowerOff {
    private final ContainerStore store;
    private final AtomicBoolean begun = new AtomicBoolean();

    PowerOff(ContainerStore store) {
        this.store = store;
    }

    void begin(long graceNanos) {
        if (!begun.compareAndSet(false, true)) {
            return;
        }
        Thread.ofPlatform().name("shutdown").start(() -> run(graceNanos <= 0 ? 10_000_000_000L : graceNanos));
    }

    private void run(long graceNanos) {
        try {
            Thread.sleep(100); // let the answer reach the host
            Console.log("shutdown: stopping %d container(s); agent resident %s", store.all().size(),
                    Console.resident());
            List<Thread> stops = new ArrayList<>();
            for (ContainerRecord rec : store.all()) {
                stops.add(Thread.ofPlatform().start(() -> {
                    try {
                        ContainerService.stop(rec, Signals.SIGTERM, graceNanos);
                        ContainerService.removeStopped(rec);
                    } catch (Exception e) {
                        Console.log("shutdown: container %s: %s", rec.id, e);
                    }
                }));
            }
            for (Thread t : stops) {
                t.join();
            }
            unmountAll();
        } catch (Throwable t) {
            Console.log("shutdown: %s", t);
        } finally {
            Machine.sync();
            Console.log("powering off");
            Machine.reboot(Machine.RB_POWER_OFF);
        }
    }

    /** Everything but the agent's own early mounts and the initramfs root, innermost first. */
    private static void unmountAll() {
        try {
            List<String> targets = new ArrayList<>();
            for (String line : Files.readAllLines(Path.of("/proc/self/mounts"))) {
                String target = line.split(" ")[1];
                if (target.startsWith("/run/") ) {
                    targets.add(target);
                }
            }
            Collections.reverse(targets);
            for (String target : targets) {
                try {
                    RootDisks.unmountRetrying(target, 30);
                } catch (RuntimeException e) {
                    Console.log("shutdown: umount %s: %s; detaching it", target, e.getMessage());
                    Mounts.umount(target, Mounts.MNT_DETACH);
                }
            }
        } catch (Exception e) {
            Console.log("shutdown: unmounting: %s", e);
        }
    }
}
