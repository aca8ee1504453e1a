package io.jrunc.runtime.init;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Whether the runtime runs in a user namespace whose /proc/self/setgroups reads "deny" (one made by an
 * unprivileged user with a single-id map, as `jrunc` run by a user makes it, or `unshare -r`): then no
 * one in it may change the supplementary groups, and a container process keeps the runtime's, as
 * with runc. Read by {@link #read} while /proc is the host's (the spawning thread later switches
 * its root to the container's, whose /proc is not there yet).
 */
public final class SetgroupsDenial {
    private SetgroupsDenial() {}

    /** The runtime's groups when setgroups is denied, else null; unset until {@link #read}. */
    private static volatile int[] kept;

    /** Reads it for this process; call before any thread changes its root. */
    public static void read() {
        try {
            if (!Files.readString(Path.of("/proc/self/setgroups")).trim().equals("deny")) {
                kept = null;
                return;
            }
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("Groups:")) {
                    kept = ChildStatus.groups(line.substring("Groups:".length()).trim());
                    return;
                }
            }
            kept = new int[0];
        } catch (IOException e) {
            kept = null; // no procfs (or a kernel without setgroups control): setgroups is left to work
        }
    }

    /** The groups a container process keeps because setgroups is denied, or null when it is not. */
    static int[] keptGroups() {
        int[] k = kept;
        return k == null ? null : k.clone();
    }
}
