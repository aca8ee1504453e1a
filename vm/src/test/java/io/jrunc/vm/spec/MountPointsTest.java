package io.jrunc.vm.spec;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrunc.vm.VmException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A --read-only root's mount points: in the image (symlinks resolved inside it) or under an earlier mount. */
class MountPointsTest {
    @TempDir
    Path tmp;

    Bundle bundle(String mounts) throws Exception {
        Path dir = tmp.resolve("bundle");
        Files.createDirectories(dir.resolve("rootfs/etc"));
        Files.createDirectories(dir.resolve("rootfs/usr/lib"));
        Files.createDirectories(dir.resolve("rootfs/dev"));
        Files.writeString(dir.resolve("config.json"), "{\"ociVersion\": \"1.0.2\", \"process\": {\"args\": [\"sh\"]},"
                + " \"root\": {\"path\": \"rootfs\", \"readonly\": true}, \"mounts\": [" + mounts + "]}");
        return Bundle.load(dir);
    }

    static String mount(String destination) {
        return "{\"destination\": \"" + destination + "\", \"type\": \"tmpfs\", \"source\": \"tmpfs\"}";
    }

    void check(Bundle b) throws VmException {
        MountPoints.requireInImage(b, SpecBuilder.build(b, new SpecBuilder.Overrides(0, 0, null, null)));
    }

    @Test
    void aMissingMountPointIsRefusedNamingItsPath() throws Exception {
        check(bundle(mount("/etc") + "," + mount("/dev") + "," + mount("/dev/pts") + "," + mount("/dev/shm/deep")));
        VmException e = assertThrows(VmException.class, () -> check(bundle(mount("/etc") + "," + mount("/scratch"))));
        assertTrue(e.getMessage().contains("mounts[1]") && e.getMessage().contains("/scratch")
                && e.getMessage().contains("--read-only"), e.getMessage());
    }

    @Test
    void symlinksResolveInsideTheRootfsNeverOnTheHost() throws Exception {
        Path rootfs = bundle(mount("/proc")).rootfs();
        Files.createSymbolicLink(rootfs.resolve("lib"), Path.of("usr/lib"));
        Files.createSymbolicLink(rootfs.resolve("abs"), Path.of("/usr"));
        Files.createSymbolicLink(rootfs.resolve("up"), Path.of("../../../.."));
        Files.createSymbolicLink(rootfs.resolve("hosttmp"), tmp);
        Files.createSymbolicLink(rootfs.resolve("loop"), Path.of("loop"));
        assertTrue(MountPoints.existsInRoot(rootfs, "/lib"));
        assertTrue(MountPoints.existsInRoot(rootfs, "/abs/lib"));
        assertTrue(MountPoints.existsInRoot(rootfs, "/up/etc"), "../ stops at the rootfs' top");
        assertTrue(MountPoints.existsInRoot(rootfs, "/../../etc"));
        // exists on the host, not in the image: the container would see nothing there
        assertTrue(Files.exists(tmp.resolve("bundle")));
        assertFalse(MountPoints.existsInRoot(rootfs, "/hosttmp/bundle"));
        assertFalse(MountPoints.existsInRoot(rootfs, "/up/tmp"), "the host's /tmp");
        assertFalse(MountPoints.existsInRoot(rootfs, "/loop"));
        assertFalse(MountPoints.existsInRoot(rootfs, "/scratch"));
    }
}
