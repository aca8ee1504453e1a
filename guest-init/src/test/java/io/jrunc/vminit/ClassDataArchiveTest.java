package io.jrunc.vminit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The JVM's log lines are the ones the image's JVM wrote with its cache used and rejected. */
class ClassDataArchiveTest {
    @TempDir
    Path dir;

    @Test
    void aCacheWhoseClassesAreInUseWithoutComplaintsIsUsed() throws Exception {
        Path log = Files.writeString(dir.resolve("cds.log"), """
                [0.010s][info][aot] Opened AOT cache /jrunc/agent.aot.
                [0.010s][info][aot] full module graph: enabled
                [0.016s][info][aot] Loaded heap    region #3 at base 0x00000000faaa0000 top 0x00000000fac06d90 size 1469840 delta 44695552
                [0.020s][info][aot] Using AOT-linked classes: true (static archive: has aot-linked classes)
                """);
        assertEquals("used", ClassDataArchive.status(log));
    }

    @Test
    void aComplaintIsARejectionAndNamesIt() throws Exception {
        Path log = Files.writeString(dir.resolve("cds.log"), """
                [0.007s][info][aot] Opened AOT cache /jrunc/agent.aot.
                [0.007s][warning][aot] Unable to use AOT cache.
                [                    ] The saved state of UseCompressedOops and UseCompressedClassPointers is different from runtime, CDS will be disabled.
                [0.007s][error  ][aot] An error has occurred while processing the AOT cache. Run with -Xlog:aot for details.
                [0.007s][error  ][aot] Loading static archive failed.
                """);
        String status = ClassDataArchive.status(log);
        assertTrue(status.startsWith("rejected: ") && status.contains("Unable to use AOT cache"), status);
    }

    @Test
    void noPassedCheckIsARejection() throws Exception {
        Path log = Files.writeString(dir.resolve("cds.log"), "[0.010s][info][aot] Opened AOT cache /jrunc/agent.aot.\n");
        assertTrue(ClassDataArchive.status(log).startsWith("rejected: no "));
    }

    @Test
    void noLogIsNoArchive() {
        assertTrue(ClassDataArchive.status(dir.resolve("absent.log")).startsWith("none "));
    }
}
