package io.jrunc.vminit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The JVM's log lines are the ones a guest JVM wrote (a used archive) and a host JVM (a rejected one). */
class ClassDataArchiveTest {
    @TempDir
    Path dir;

    @Test
    void aPassedClassPathCheckWithoutComplaintsIsUsed() throws Exception {
        Path log = Files.writeString(dir.resolve("cds.log"), """
                [0.114s][info][class,path] Reading classpath(s) from /jrunc/agent.jsa (size = 12)
                [0.114s][info][class,path] Archived boot classpath validation: passed
                [0.114s][info][class,path] Archived app classpath validation: passed
                [0.114s][info][class,path] Archived module path validation: passed
                """);
        assertEquals("used", ClassDataArchive.status(log));
    }

    @Test
    void aComplaintIsARejectionAndNamesIt() throws Exception {
        Path log = Files.writeString(dir.resolve("cds.log"), """
                [0.130s][info   ][class,path] Checking [1] '/jrunc/vminit.jar' file
                [0.130s][warning][cds       ] This file is not the one used while building the shared archive file: '/jrunc/vminit.jar', timestamp has changed
                [0.130s][error  ][cds       ] shared class paths mismatch
                [0.130s][warning][cds,dynamic] Unable to use shared archive. The top archive failed to load: /jrunc/agent.jsa
                """);
        String status = ClassDataArchive.status(log);
        assertTrue(status.startsWith("rejected: ") && status.contains("timestamp has changed"), status);
    }

    @Test
    void noPassedCheckIsARejection() throws Exception {
        Path log = Files.writeString(dir.resolve("cds.log"), "[0.010s][info][class,path] bootstrap loader class path=/jre/lib/modules\n");
        assertTrue(ClassDataArchive.status(log).startsWith("rejected: no "));
    }

    @Test
    void noLogIsNoArchive() {
        assertTrue(ClassDataArchive.status(dir.resolve("absent.log")).startsWith("none "));
    }
}
