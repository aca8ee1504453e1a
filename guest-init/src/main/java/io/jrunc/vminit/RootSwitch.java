package io.jrunc.vminit;

import io.jrunc.bindings.FsContext;
import io.jrunc.bindings.Mounts;
import io.jrunc.ttrpc.Code;
import io.jrunc.ttrpc.RpcException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The agent's first step: its root becomes a bind mount of itself, moved over / and chrooted into (what
 * switch_root does, without copying anything). An agent whose root is the initramfs (rootfs) needs it:
 * rootfs is the root of the mount tree, which pivot_root(2) refuses (EINVAL), and from the bind mount
 * containers get pivot_root like on any host, not --no-pivot's chroot. The image's agent, whose root
 * the initramfs's init mounted from the agent's root image and switched to, is already there; the bind
 * costs it a few milliseconds and nothing else. Done before any other mount, so the bind carries
 * nothing else; every thread of the JVM shares the new root (they share one fs context).
 *
 * <p>A container is made with move + chroot (runc's --no-pivot) only when its create asks for it, as
 * runc does: chroot leaves the old root reachable to a process that escapes it, so it is never chosen
 * silently. Should the switch fail at boot, pivot_root would fail for every container; creates that
 * do not ask are then refused with the reason (and the boot log says it once).
 */
final class RootSwitch {
    private RootSwitch() {}

    private static final String NEW_ROOT = "/.root";

    /** What the boot's switch did: done, or why not. */
    record Outcome(boolean switched, String failure) {
        static final Outcome NOT_TRIED = new Outcome(false, "the root switch was not run");
    }

    private static volatile Outcome outcome = Outcome.NOT_TRIED;

    /** Switches the root; a failure is kept (for {@link #noPivot}) and returned, never thrown. */
    static Outcome run() {
        try {
            Files.createDirectories(Path.of(NEW_ROOT));
            Mounts.mount("/", NEW_ROOT, null, Mounts.MS_BIND, null);
            FsContext.chdir(NEW_ROOT);
            Mounts.mount(".", "/", null, Mounts.MS_MOVE, null);
            FsContext.chroot(".");
            FsContext.chdir("/");
            outcome = new Outcome(true, null);
        } catch (IOException | RuntimeException e) {
            outcome = new Outcome(false, e.getMessage() == null ? e.toString() : e.getMessage());
        }
        return outcome;
    }

    static Outcome outcome() {
        return outcome;
    }

    /**
     * What the root is, from the last line for / in /proc/self/mounts ({@code TYPE SOURCE (OPTIONS)}:
     * {@code ext4 /dev/pmem0 (rw,relatime,dax=always)} for the image's agent root), or why it is not known.
     */
    static String describe() {
        try {
            String found = "not in /proc/self/mounts";
            for (String line : Files.readAllLines(Path.of("/proc/self/mounts"))) {
                String[] f = line.split(" ");
                if (f.length >= 4 && f[1].equals("/")) {
                    // a builder, not +: this concatenation's shape is not in the cache's training, and
                    // its first run (before the ready line) would spin a class for it
                    found = new StringBuilder(f[2]).append(' ').append(f[0]).append(" (").append(f[3]).append(')').toString();
                }
            }
            return found;
        } catch (IOException e) {
            return "unknown: " + e.getMessage();
        }
    }

    /** Whether a create that {@code asked} for no pivot (or not) is made with noPivot, under the boot's switch. */
    static boolean noPivot(boolean asked) throws RpcException {
        return noPivot(asked, outcome);
    }

    static boolean noPivot(boolean asked, Outcome outcome) throws RpcException {
        if (asked) {
            return true;
        }
        if (!outcome.switched()) {
            throw new RpcException(Code.FAILED_PRECONDITION, "pivot_root is not possible in this guest: the agent's"
                    + " root is still the initramfs, which pivot_root(2) refuses (the root switch at boot failed: "
                    + outcome.failure() + "); create with no_pivot to move the root over / and chroot instead");
        }
        return false;
    }
}
