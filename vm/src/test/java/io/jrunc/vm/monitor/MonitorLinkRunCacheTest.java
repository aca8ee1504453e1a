package io.jrunc.vm.monitor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Which AOT cache the monitor's JVM is started with: the launcher's, found beside jrunc-vm.jar. */
class MonitorLinkRunCacheTest {
    @TempDir
    Path dir;

    @Test
    void theCacheBesideTheJarIsTaken() throws Exception {
        Path lib = Files.createDirectories(dir.resolve("lib-vm"));
        Files.writeString(lib.resolve("jrunc-vm.jar"), "");
        Files.writeString(lib.resolve(MonitorLink.RUN_CACHE), "");
        String classPath = String.join(File.pathSeparator, lib.resolve("picocli.jar").toString(),
                lib.resolve("jrunc-vm.jar").toString(), dir.resolve("other/jrunc-vm-run.aot").toString());
        assertEquals(lib.resolve(MonitorLink.RUN_CACHE), MonitorLink.runCache(classPath));
    }

    @Test
    void noCacheOrNoJarIsNone() throws Exception {
        Path lib = Files.createDirectories(dir.resolve("lib-vm"));
        Files.writeString(lib.resolve("jrunc-vm.jar"), "");
        assertNull(MonitorLink.runCache(lib.resolve("jrunc-vm.jar").toString()), "no cache beside the jar");
        Files.writeString(dir.resolve(MonitorLink.RUN_CACHE), "");
        assertNull(MonitorLink.runCache(dir.resolve("classes").toString()), "a class path without jrunc-vm.jar (mvn's)");
    }
}
