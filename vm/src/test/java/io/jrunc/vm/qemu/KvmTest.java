package io.jrunc.vm.qemu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Which accelerator a pod gets: the device, the CPU's flags, qemu's own answer and its record. Whether
 * this host's KVM works is PodVmTest's, against a boot.
 */
class KvmTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(20);

    /**
     * Only a device counts: a regular file at the path (one left by a careless open with create) or
     * none at all is TCG, and the check never creates the path. /dev/null stands for a device that opens.
     */
    @Test
    void onlyADeviceThatOpensReadWriteCounts(@TempDir Path dir) throws IOException {
        assertTrue(Kvm.deviceOpens(Path.of("/dev/null")));
        Path missing = dir.resolve("kvm");
        assertFalse(Kvm.deviceOpens(missing));
        assertFalse(Files.exists(missing), "the check made the path");
        Files.createFile(missing);
        assertFalse(Kvm.deviceOpens(missing), "a regular file is not KVM");
        Files.delete(missing);
        Files.createSymbolicLink(missing, Path.of("/dev/null"));
        assertFalse(Kvm.deviceOpens(missing), "a link is not followed");
    }

    /** vmx (Intel) or svm (AMD) among the flags, as whole words; a software KVM's CPU has neither. */
    @Test
    void hardwareVirtualisationIsAFlag() {
        assertTrue(Kvm.hardwareVirtualisation("processor\t: 0\nflags\t\t: fpu vme vmx sse\nbugs\t\t: spectre\n"));
        assertTrue(Kvm.hardwareVirtualisation("flags\t\t: fpu svm\n"));
        assertFalse(Kvm.hardwareVirtualisation("flags\t\t: fpu vme sse hypervisor\nvmx flags\t: ept\n"),
                "the 'vmx flags' line is not the flags");
        assertFalse(Kvm.hardwareVirtualisation("flags\t\t: fpu vmxe svmx\n"));
        assertFalse(Kvm.hardwareVirtualisation(""));
    }

    /**
     * qemu's exit is the verdict, and its error line the reason; stand-ins play qemu: one that aborts
     * as qemu does on a vCPU it cannot set up, one that reads its QMP commands and quits.
     */
    @Test
    void qemuSaysWhetherItsVcpuSetsUp() {
        Kvm.Verdict broken = Kvm.probe(List.of("sh", "-c",
                "echo 'qemu-system-x86_64: error: failed to set MSR 0x10a to 0x69' >&2; kill -ABRT $$"), TIMEOUT);
        assertFalse(broken.kvm());
        assertEquals("qemu under KVM exited 134: error: failed to set MSR 0x10a to 0x69", broken.reason());
        Kvm.Verdict works = Kvm.probe(List.of("sh", "-c", "read a; read b; case $b in *quit*) exit 0;; esac; exit 1"), TIMEOUT);
        assertTrue(works.kvm(), String.valueOf(works.reason()));
        assertNull(works.reason());
        assertFalse(Kvm.probe(List.of("/nonexistent/qemu"), TIMEOUT).kvm());
    }

    /** A qemu that hangs in its set-up (it never reads its QMP commands) is no KVM, and is ended. */
    @Test
    void aQemuThatHangsIsNoKvmAndIsEnded(@TempDir Path dir) throws Exception {
        Path pid = dir.resolve("pid");
        long start = System.nanoTime();
        Kvm.Verdict hung = Kvm.probe(List.of("sh", "-c", "echo $$ > " + pid + "; exec sleep 60"), Duration.ofSeconds(1));
        assertTrue(System.nanoTime() - start < Duration.ofSeconds(10).toNanos(), "the probe waited past its timeout");
        assertFalse(hung.kvm());
        assertEquals("qemu under KVM did not quit within 1 s", hung.reason());
        // ended, not left to run its minute out (a process that is gone already has no handle)
        java.util.Optional<ProcessHandle> left = ProcessHandle.of(Long.parseLong(Files.readString(pid).strip()));
        if (left.isPresent()) {
            left.get().onExit().get(5, java.util.concurrent.TimeUnit.SECONDS);
        }
    }

    /** The probe's command is the pod's machine and CPU model under KVM, stopped, with QMP on stdio. */
    @Test
    void theProbeAsksForThePodsMachine() {
        String cmd = String.join(" ", Kvm.probeCommand());
        assertTrue(cmd.startsWith("qemu-system-x86_64 -machine q35,accel=kvm -cpu host "), cmd);
        assertTrue(cmd.contains(" -S ") && cmd.endsWith(" -qmp stdio"), cmd);
    }

    /** A verdict is kept for the host's boot that found it: another boot's, or a damaged file, is not used. */
    @Test
    void theVerdictIsKeptForOneBoot(@TempDir Path root) throws IOException {
        Path file = root.resolve(Kvm.VERDICT_FILE);
        assertNull(Kvm.read(file, "boot-1"));
        Kvm.record(file, "boot-1", new Kvm.Verdict(false, "qemu under KVM exited 134"));
        assertEquals(new Kvm.Verdict(false, "qemu under KVM exited 134"), Kvm.read(file, "boot-1"));
        assertNull(Kvm.read(file, "boot-2"), "another boot's verdict");
        Kvm.record(file, "boot-2", new Kvm.Verdict(true, null));
        assertEquals(new Kvm.Verdict(true, null), Kvm.read(file, "boot-2"));
        Files.writeString(file, "boot-2\nmaybe\n");
        assertNull(Kvm.read(file, "boot-2"), "a damaged record");
        try (var left = Files.list(root)) {
            assertEquals(List.of(file), left.toList(), "no temporary file left");
        }
        Kvm.record(root.resolve("absent").resolve(Kvm.VERDICT_FILE), "boot-1", new Kvm.Verdict(true, null));
        assertFalse(Files.exists(root.resolve("absent")), "no state root is made for it");
    }
}
