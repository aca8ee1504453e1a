package io.jrunc.vm.monitor;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The line the CLI quotes from a pod's monitor.log or a guest's console.log. */
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

    /** A failed boot is told by the image's own line, not by the panic's trace after it. */
    @Test
    void aBootFailureIsToldByTheInitsLineThenThePanic() throws Exception {
        Path console = dir.resolve("console.log");
        String trace = "[    1.96] Kernel panic - not syncing: Attempted to kill init! exitcode=0x00000100\r\n"
                + "[    1.97] Call Trace:\r\n[    1.98] Kernel Offset: 0x3b600000 from 0xffffffff81000000\r\n";
        Files.writeString(console, "[    1.95] EXT4-fs (pmem0): DAX unsupported by block device.\r\n"
                + "jrunc-init: cannot mount the agent's root from /dev/pmem0; the agent cannot start\r\n" + trace);
        assertEquals("jrunc-init: cannot mount the agent's root from /dev/pmem0; the agent cannot start", MonitorLink.bootFailure(console));
        Files.writeString(console, "jrunc-vminit [   4.1] boot failed: java.io.IOException: no port\r\n"
                + "jrunc-vminit [   4.1]     at io.jrunc.vminit.VmInit.boot(VmInit.java:1)\r\n[    4.3] reboot: Power down\r\n");
        assertEquals("jrunc-vminit [   4.1] boot failed: java.io.IOException: no port", MonitorLink.bootFailure(console));
        Files.writeString(console, "[    0.9] Run /init as init process\r\n" + trace);
        assertEquals("[    1.96] Kernel panic - not syncing: Attempted to kill init! exitcode=0x00000100", MonitorLink.bootFailure(console));
        Files.writeString(console, "[    0.9] Run /init as init process\r\n");
        assertEquals("[    0.9] Run /init as init process", MonitorLink.bootFailure(console));
        assertEquals("(no log)", MonitorLink.bootFailure(dir.resolve("absent.log")));
    }

    @Test
    void aMissingOrBlankLogSaysSo() throws Exception {
        assertEquals("(no log)", MonitorLink.lastLine(dir.resolve("absent.log")));
        Files.writeString(dir.resolve("blank.log"), "\n  \n");
        assertEquals("(no log)", MonitorLink.lastLine(dir.resolve("blank.log")));
    }
}
