package io.jrunc.vm.qemu;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Whether a host process still holds anything: the test every wait for a pod's processes uses. */
public final class Liveness {
    private Liveness() {
    }

    /**
     * Alive and not a zombie. A process that got SIGKILL has ended once it is a zombie: it holds no
     * memory, file or socket any more, and whoever reaps it (its parent, or init for an orphan, which
     * may take a second or two) is no concern of the pod's. ProcessHandle counts a zombie as alive.
     */
    public static boolean live(ProcessHandle h) {
        if (!h.isAlive()) {
            return false;
        }
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(h.pid()), "stat"));
            char state = stat.substring(stat.lastIndexOf(')') + 1).strip().charAt(0);
            return state != 'Z' && state != 'X';
        } catch (IOException | RuntimeException e) {
            return h.isAlive();
        }
    }
}
