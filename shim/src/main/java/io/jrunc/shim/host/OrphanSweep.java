package io.jrunc.shim.host;

import io.jrunc.bindings.ErrnoException;
import io.jrunc.bindings.Prctl;
import io.jrunc.bindings.Processes;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;

/**
 * The shim is the child subreaper of what it starts (PR_SET_CHILD_SUBREAPER): a process of a container
 * that shares the host's pid namespace, orphaned there, is re-parented to the shim instead of to the
 * host's init. Such orphans are collected by a sweep once a second: a child of the shim (listed in
 * /proc/self/task/TID/children) that is a zombie, whose exit no {@link ExitWatch} collects, and that was
 * a zombie at the previous sweep too. The JDK's reaper and the runtime library wait for their own
 * children by pid the moment they exit, so a zombie left for a whole second is nobody's: taking it
 * with waitpid(pid, WNOHANG) steals no status.
 */
final class OrphanSweep {
    private static final Path TASKS = Path.of("/proc/self/task");
    private Set<Integer> zombiesBefore = Set.of();
    private volatile boolean stopped;

    static OrphanSweep start() {
        Prctl.setChildSubreaper();
        OrphanSweep sweep = new OrphanSweep();
        Thread.ofPlatform().name("orphan-sweep").daemon(true).start(sweep::loop);
        return sweep;
    }

    void stop() {
        stopped = true;
    }

    private void loop() {
        while (!stopped) {
            try {
                Thread.sleep(1000);
            } catch (InterruptedException e) {
                return;
            }
            sweep();
        }
    }

    /** One sweep; returns how many orphans it collected. */
    int sweep() {
        Set<Integer> zombies = new HashSet<>();
        int collected = 0;
        for (int pid : children()) {
            if (ExitWatch.WATCHED.contains(pid) || !zombie(pid)) {
                continue;
            }
            if (!zombiesBefore.contains(pid)) {
                zombies.add(pid);
                continue;
            }
            try {
                if (Processes.waitpid(pid, Processes.WNOHANG | Processes.__WALL) != null) {
                    collected++;
                }
            } catch (ErrnoException e) {
                // collected by its owner meanwhile
            }
        }
        zombiesBefore = zombies;
        return collected;
    }

    private static Set<Integer> children() {
        Set<Integer> pids = new HashSet<>();
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(TASKS)) {
            for (Path task : tasks) {
                try {
                    for (String pid : Files.readString(task.resolve("children")).trim().split("\\s+")) {
                        if (!pid.isEmpty()) {
                            pids.add(Integer.parseInt(pid));
                        }
                    }
                } catch (IOException e) {
                    // the thread ended meanwhile
                }
            }
        } catch (IOException e) {
            // /proc unreadable: nothing to sweep this time
        }
        return pids;
    }

    private static boolean zombie(int pid) {
        io.jrunc.runtime.ProcStat stat = io.jrunc.runtime.ProcStat.read(pid);
        return stat != null && stat.state() == 'Z';
    }
}
