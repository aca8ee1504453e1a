package io.jrunc.cgroups;

import java.nio.file.Path;
import java.time.Duration;

/**
 * Pause and resume of every process in a cgroup (runc's pause/resume), in one of the two kernel
 * interfaces.
 *
 * <ul>
 * <li>cgroup v2 (runc fs2/freezer.go): write 1/0 to cgroup.freeze; freezing is asynchronous, so
 * cgroup.events is polled every 10 ms until it says {@code frozen 1}.</li>
 * <li>cgroup v1 (runc fs/freezer.go): write FROZEN/THAWED to freezer.state and read it back until it
 * leaves FREEZING; v1 can stay in FREEZING while tasks keep appearing, so the cgroup is thawed now and
 * then (every 50 attempts) to let them settle, as runc does.</li>
 * </ul>
 * A freeze that does not complete within the timeout thaws the cgroup again rather than leave it
 * half-frozen, and fails.
 */
sealed interface Freezer {
    Duration POLL = Duration.ofMillis(10);
    Duration TIMEOUT = Duration.ofSeconds(10);

    void freeze() throws CgroupException;

    void thaw() throws CgroupException;

    /** Whether the cgroup is (asked to be) frozen by itself, not by a frozen ancestor. */
    boolean isFrozen() throws CgroupException;

    record V2(CgroupFiles files, Path dir) implements Freezer {
        @Override
        public void freeze() throws CgroupException {
            files.write(dir.resolve("cgroup.freeze"), "1");
            long deadline = System.nanoTime() + TIMEOUT.toNanos();
            while (!eventsSayFrozen()) {
                if (System.nanoTime() > deadline) {
                    thawQuietly();
                    throw new CgroupException("timeout of " + TIMEOUT.toSeconds() + "s reached waiting for the cgroup "
                            + dir + " to freeze");
                }
                sleep(POLL);
            }
        }

        private boolean eventsSayFrozen() throws CgroupException {
            for (String line : files.read(dir.resolve("cgroup.events")).split("\n")) {
                if (line.startsWith("frozen ")) {
                    return line.substring("frozen ".length()).trim().equals("1");
                }
            }
            throw new CgroupException("freezer not supported: no \"frozen\" in " + dir.resolve("cgroup.events"));
        }

        @Override
        public void thaw() throws CgroupException {
            files.write(dir.resolve("cgroup.freeze"), "0");
        }

        private void thawQuietly() {
            try {
                thaw();
            } catch (CgroupException ignored) {
                // the freeze failure is the one to report
            }
        }

        @Override
        public boolean isFrozen() throws CgroupException {
            Path file = dir.resolve("cgroup.freeze");
            return files.exists(file) && files.read(file).trim().equals("1");
        }
    }

    record V1(CgroupFiles files, Path dir) implements Freezer {
        private static final int ATTEMPTS = 1000;

        @Override
        public void freeze() throws CgroupException {
            Path state = dir.resolve("freezer.state");
            try {
                for (int i = 0; i < ATTEMPTS; i++) {
                    if (i % 50 == 49) {
                        files.write(state, "THAWED");
                        sleep(POLL);
                    }
                    files.write(state, "FROZEN");
                    String now = files.read(state).trim();
                    switch (now) {
                        case "FROZEN" -> {
                            return;
                        }
                        case "FREEZING" -> sleep(Duration.ofMillis(1));
                        default -> throw new CgroupException("unexpected state " + now + " of " + state + " while freezing");
                    }
                }
                throw new CgroupException("unable to freeze " + dir + ": still FREEZING after " + ATTEMPTS + " attempts");
            } catch (CgroupException e) {
                try {
                    thaw(); // never leave it FROZEN or FREEZING after a failure
                } catch (CgroupException suppressed) {
                    e.addSuppressed(suppressed);
                }
                throw e;
            }
        }

        @Override
        public void thaw() throws CgroupException {
            files.write(dir.resolve("freezer.state"), "THAWED");
        }

        @Override
        public boolean isFrozen() throws CgroupException {
            long deadline = System.nanoTime() + TIMEOUT.toNanos();
            while (true) {
                String state = files.read(dir.resolve("freezer.state")).trim();
                switch (state) {
                    case "THAWED":
                        return false;
                    case "FROZEN":
                        // FROZEN is also shown when an ancestor is frozen; only our own freeze counts
                        Path self = dir.resolve("freezer.self_freezing");
                        return !files.exists(self) || files.read(self).trim().equals("1");
                    case "FREEZING":
                        if (System.nanoTime() > deadline) {
                            return true;
                        }
                        sleep(Duration.ofMillis(1));
                        break;
                    default:
                        throw new CgroupException("unexpected state " + state + " of " + dir.resolve("freezer.state"));
                }
            }
        }
    }

    private static void sleep(Duration delay) throws CgroupException {
        try {
            Thread.sleep(delay);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CgroupException("interrupted while waiting for the freezer", e);
        }
    }
}
