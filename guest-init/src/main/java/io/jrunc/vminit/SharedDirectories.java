package io.jrunc.vminit;

import io.jrunc.bindings.Errno;
import io.jrunc.bindings.ErrnoException;
import io.jrunc.bindings.Mounts;
import io.jrunc.spec.Mount;
import io.jrunc.spec.Spec;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * Host directories shared with a container through virtio-fs (docs/guest-init.md, "Shared host
 * directories"). The host hot-plugs one vhost-user-fs device per directory just before the container's
 * disk, and the container's spec mounts its tag ({@code type: virtiofs}, {@code source: TAG}), which
 * the runtime library mounts as it mounts any filesystem. The only thing the agent does is wait for
 * the tags: a hot-plugged device is probed when the guest handles its ACPI event, and until the
 * virtiofs driver has registered the tag a mount of it fails with EINVAL. Nothing is mounted outside
 * the container's own mount namespace, so nothing is left in the guest when the container goes.
 */
final class SharedDirectories {
    private SharedDirectories() {
    }

    static final String TYPE = "virtiofs";
    private static final Path PROBE = Path.of("/run/jrunc/share-probe");
    private static final Path PCI_RESCAN = Path.of("/sys/bus/pci/rescan");

    /** The virtio-fs tags the spec mounts, in order, each once. */
    static Set<String> tags(Spec spec) {
        Set<String> tags = new LinkedHashSet<>();
        if (spec.mounts() != null) {
            for (Mount m : spec.mounts()) {
                if (TYPE.equals(m.type()) && m.source() != null && !m.source().isEmpty()) {
                    tags.add(m.source());
                }
            }
        }
        return tags;
    }

    /**
     * Waits up to {@code waitMillis} for every tag the spec mounts; the first one that never comes is
     * returned (null: all there). A tag is there when a read-only mount of it succeeds, made on a
     * private probe directory and detached at once. After {@link RootDisks#RESCAN_AFTER_MILLIS} the
     * PCI bus is rescanned once, for a device whose hot-plug event was missed.
     */
    static String await(Spec spec, long waitMillis) throws IOException, InterruptedException {
        Set<String> tags = tags(spec);
        if (tags.isEmpty()) {
            return null;
        }
        return await(tags, waitMillis);
    }

    /** {@link #await(Spec, long)} for the given tags (a container root shared by virtio-fs is one). */
    static String await(Set<String> tags, long waitMillis) throws IOException, InterruptedException {
        long start = System.nanoTime();
        boolean rescanned = false;
        for (String tag : tags) {
            while (!present(tag)) {
                long elapsed = (System.nanoTime() - start) / 1_000_000;
                if (elapsed >= waitMillis) {
                    return tag;
                }
                if (!rescanned && elapsed >= RootDisks.RESCAN_AFTER_MILLIS) {
                    rescanned = true;
                    try {
                        Files.writeString(PCI_RESCAN, "1");
                        Console.log("shared directory %s not seen after %d ms: PCI bus rescanned", tag, elapsed);
                    } catch (IOException e) {
                        Console.log("shared directory %s not seen; PCI rescan failed: %s", tag, e.getMessage());
                    }
                }
                Thread.sleep(50);
            }
        }
        return null;
    }

    /** Whether the virtiofs driver knows the tag: EINVAL is "tag not found" (fs/fuse/virtio_fs.c). */
    private static synchronized boolean present(String tag) throws IOException {
        Files.createDirectories(PROBE);
        try {
            Mounts.mount(tag, PROBE.toString(), TYPE, Mounts.MS_RDONLY | Mounts.MS_NOSUID | Mounts.MS_NODEV | Mounts.MS_NOEXEC, null);
        } catch (ErrnoException e) {
            if (e.is(Errno.EINVAL)) {
                return false;
            }
            throw new IOException("mounting shared directory " + tag + ": " + e.getMessage(), e);
        }
        Mounts.umount(PROBE.toString(), Mounts.MNT_DETACH);
        return true;
    }
}
