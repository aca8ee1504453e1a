package io.jrunc.vminit;

import io.jrunc.bindings.FsContext;
import io.jrunc.bindings.Mounts;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The agent's first step: its root becomes a bind mount of the initramfs instead of the initramfs
 * (rootfs) itself, which is the root of the mount tree and which pivot_root(2) therefore refuses
 * (EINVAL). From a bind mount moved over / and chrooted into (what switch_root does, without copying
 * anything), containers get pivot_root like on any host, not --no-pivot's chroot. Done before any other
 * mount, so the bind carries nothing else; every thread of the JVM shares the new root (they share one
 * fs context).
 */
final class RootSwitch {
    private RootSwitch() {}

    private static final String NEW_ROOT = "/.root";
    private static volatile boolean switched;

    static void run() throws IOException {
        Files.createDirectories(Path.of(NEW_ROOT));
        Mounts.mount("/", NEW_ROOT, null, Mounts.MS_BIND, null);
        FsContext.chdir(NEW_ROOT);
        Mounts.mount(".", "/", null, Mounts.MS_MOVE, null);
        FsContext.chroot(".");
        FsContext.chdir("/");
        switched = true;
    }

    /** Whether containers can pivot_root (else they are made with noPivot). */
    static boolean pivotable() {
        return switched;
    }
}
