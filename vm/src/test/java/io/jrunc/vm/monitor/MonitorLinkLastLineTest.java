package io.jrunc.vm.monitor;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The last line the CLI quotes from a pod's monitor.log or a guest's console.log. */
class MonitorLinkLastLineTest {
    @TempDir
    Path dir;

    @Test
    void aConsoleWithBytesThatAreNotUtf8StillGivesItsLastLine() throws Exception {
        Path console = dir.resolve("console.log");
        // a serial console: a program's raw bytes, then the kernel's panic
        byte[] noise = {'o', 'k', (byte) 0xff, (byte) 0xfe, '\r', '\n'};
        byte[] panic = "---[ end Kernel panic - not syncing: Attempted to kill init! ]---\r\n\r\n".getBytes();
        Files.write(console, noise);
        Files.write(console, panic, java.nio.file.StandardOpenOption.APPEND);
        assertEquals("---[ end Kernel panic - not syncing: Attempted to kill init! ]---", MonitorLink.lastLine(console));
    }

    @Test
    void aMissingOrBlankLogSaysSo() throws Exception {
        assertEquals("(no log)", MonitorLink.lastLine(dir.resolve("absent.log")));
        Files.writeString(dir.resolve("blank.log"), "\n  \n");
        assertEquals("(no log)", MonitorLink.lastLine(dir.resolve("blank.log")));
    }
}
