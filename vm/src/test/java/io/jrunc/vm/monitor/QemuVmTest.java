package io.jrunc.vm.monitor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrunc.testsupport.Requirements;
import io.jrunc.vm.qemu.QemuCommand;
import io.jrunc.vm.qemu.SwapDisk;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The monitor's qemu against a real qemu where nothing boots (-machine none): a launch that fails
 * leaves nothing of the boot in the pod's directory and no qemu; a qemu that will not quit (stopped
 * here with SIGSTOP, so QMP is deaf) is killed and its exit reported. Without qemu-system-x86_64
 * the cases that need it fail under CI=true and are skipped elsewhere (Requirements).
 */
class QemuVmTest {
    @TempDir
    Path dir;

    /** A boot's command line as the monitor makes it, without a kernel: the QMP socket, the agent's chardev, a swap area. */
    List<String> command(String binary, String... extra) throws IOException {
        List<String> cmd = new ArrayList<>(List.of(binary, "-nodefaults", "-no-user-config", "-display", "none",
                "-machine", "none", "-qmp", "unix:" + dir.resolve("qmp.sock") + ",server=on,wait=off",
                "-chardev", "socket,id=ctl,path=" + dir.resolve("agent.sock") + ",server=on,wait=off"));
        cmd.addAll(SwapDisk.qemuArgs(SwapDisk.makeFresh(dir, 1 << 20)).subList(0, 2)); // the drive alone: -machine none has no bus
        cmd.addAll(List.of(extra));
        return cmd;
    }

    static void requireQemu() {
        Requirements.requireCommands("qemu-system-x86", QemuCommand.BINARY);
    }

    List<String> left() throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(p -> p.getFileName().toString()).filter(n -> !n.equals("monitor.log")).sorted().toList();
        }
    }

    @Test
    void aBinaryThatDoesNotExistLeavesNothing() throws Exception {
        List<String> cmd = command(dir.resolve("no-such-qemu").toString());
        assertTrue(Files.exists(SwapDisk.file(dir)));
        assertThrows(IOException.class, () -> QemuVm.launch(cmd, dir, dir.resolve("monitor.log")));
        assertEquals(List.of(), left(), "swap.img and the sockets are gone");
    }

    @Test
    void argumentsQemuRefusesLeaveNothingAndNoQemu() throws Exception {
        requireQemu();
        List<String> cmd = command(QemuCommand.BINARY, "-no-such-option");
        IOException e = assertThrows(IOException.class, () -> QemuVm.launch(cmd, dir, dir.resolve("monitor.log")));
        assertTrue(e.getMessage().contains("qemu exited"), e.getMessage());
        assertEquals(List.of(), left(), "swap.img and the sockets are gone");
        assertTrue(Files.readString(dir.resolve("monitor.log")).contains("no-such-option"), "qemu's complaint is in the log");
        assertEquals(List.of(), ProcessHandle.current().children().filter(ProcessHandle::isAlive).toList(), "no qemu left");
    }

    @Test
    void aQemuThatIgnoresQuitIsKilledAndItsExitReported() throws Exception {
        requireQemu();
        QemuVm vm = QemuVm.launch(command(QemuCommand.BINARY), dir, dir.resolve("monitor.log"));
        try {
            assertEquals("running", vm.status());
            // stopped, qemu reads no QMP command and cannot exit: quit alone would leave it for ever
            assertEquals(0, new ProcessBuilder("kill", "-STOP", Long.toString(vm.pid())).start().waitFor());
            long t0 = System.nanoTime();
            Integer exit = PodMonitor.stopVm(vm, Duration.ofSeconds(1));
            assertEquals(137, exit, "SIGKILL, as the exit status reports it");
            assertFalse(vm.isAlive());
            assertTrue(System.nanoTime() - t0 < Duration.ofSeconds(30).toNanos());
        } finally {
            vm.kill();
            vm.close();
        }
    }
}
