package io.jrunc.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A symlink in the image must not send a mount onto the host: destinations are resolved inside the
 * rootfs, so the mount lands inside it whatever the links in the image say.
 */
@ExtendWith(JruncExtension.class)
class SymlinkMountTest {

    @Test
    void maliciousSymlinksCannotMountOntoTheHost(Sandbox sb) throws Exception {
        Path hostAbs = Files.createDirectories(sb.file("host-abs"));
        Path hostRel = Files.createDirectories(sb.file("host-rel"));
        Path source = Files.createDirectories(sb.file("source"));
        Files.writeString(source.resolve("marker"), "inside\n");
        Bundle b = sb.bundle();
        // rootfs/etc -> an absolute host path; rootfs/lib -> a relative path climbing out of the rootfs
        Files.delete(b.rootfs().resolve("etc"));
        Files.createSymbolicLink(b.rootfs().resolve("etc"), hostAbs);
        Files.createSymbolicLink(b.rootfs().resolve("lib"), Path.of("../".repeat(12) + hostRel.toString().substring(1)));
        b.bind(source, "/etc/app").mount("/lib/tmp", "tmpfs", "tmpfs");
        b.sh("cat /etc/app/marker; touch /lib/tmp/x && echo tmpfs-ok");

        Result r = sb.jrunc().in(b.dir(), "run", sb.id("symlink"));
        // first the host: nothing created or mounted behind the links
        try (var s = Files.list(hostAbs)) {
            assertEquals(List.of(), s.toList(), "host directory behind the absolute link stays empty");
        }
        try (var s = Files.list(hostRel)) {
            assertEquals(List.of(), s.toList(), "host directory behind the relative link stays empty");
        }
        for (String line : Host.mountinfo()) {
            assertFalse(line.contains(hostAbs.toString()) || line.contains(hostRel.toString()), line);
        }
        r.ok();
        List<String> lines = r.stdout().lines().toList();
        assertEquals("inside", lines.get(0), r.stdout());
        assertEquals("tmpfs-ok", lines.get(1), r.stdout());
        // the mounts were made at the links' targets resolved inside the rootfs
        assertEquals(true, Files.isDirectory(b.rootfs().resolve(hostAbs.toString().substring(1)).resolve("app")));
    }
}
