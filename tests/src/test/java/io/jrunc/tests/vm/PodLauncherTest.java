package io.jrunc.tests.vm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.jrunc.testsupport.Requirements;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * jrunc-vm's launcher, QMP hot-plug and pod monitor against a real kernel under qemu, before the
 * guest agent's image exists: the initramfs is busybox with a scripted stand-in agent as /init
 * (resources vm/stand-in-agent.sh: it answers the sync preamble and canned ttRPC responses; no
 * container runs). What is real: qemu's command line, the virtio-serial port named jrunc.agent and its
 * one-client chardev, the protocol's sync over it, SCSI hot-plug and unplug of the container's disk,
 * the monitor's detachment, its replacement after kill -9, and power-off through the agent. One boot,
 * about 15-40 s under emulation.
 *
 * <p>Needs the Debian cloud kernel `make test-vm` unpacks into build/vm/kernel (or the directory
 * named by $JRUNC_VM_KERNEL_DIR, a `dpkg-deb -x` of linux-image-*-cloud-amd64), busybox-static, cpio
 * and qemu; without one of them the test fails under CI=true and skips elsewhere, saying which.
 */
class PodLauncherTest {
    static final List<String> MODULES = List.of("virtio_ring", "virtio", "virtio_pci_modern_dev",
            "virtio_pci_legacy_dev", "virtio_pci", "virtio_console", "scsi_common", "scsi_mod", "sd_mod", "virtio_scsi");

    @TempDir
    Path work;
    JruncVm vm;

    /** Whatever a failed case left running (qemu, its monitor) goes with the pod. */
    @org.junit.jupiter.api.AfterEach
    void removePods() throws Exception {
        if (vm != null && Files.isDirectory(vm.root().resolve("pods/p1"))) {
            vm.run("pod", "rm", "-f", "p1");
        }
    }

    static Optional<Path> kernelDir() {
        String env = System.getenv("JRUNC_VM_KERNEL_DIR");
        Path dir = env != null ? Path.of(env) : JruncVm.BIN.getParent().resolveSibling("vm").resolve("kernel");
        return Files.isDirectory(dir.resolve("boot")) ? Optional.of(dir) : Optional.empty();
    }

    /** The kernel and a busybox initramfs with the stand-in agent, as an image directory. */
    Path image(Path kernelDir) throws Exception {
        Path img = Files.createDirectories(work.resolve("img"));
        Path ird = Files.createDirectories(work.resolve("initramfs"));
        for (String d : List.of("bin", "mod", "dev", "proc", "sys", "tmp")) {
            Files.createDirectories(ird.resolve(d));
        }
        Files.copy(Path.of("/bin/busybox"), ird.resolve("bin/busybox"));
        for (String applet : List.of("sh", "mount", "insmod", "dd", "od", "printf", "cat", "grep", "poweroff", "sleep", "tr", "head")) {
            Files.createSymbolicLink(ird.resolve("bin").resolve(applet), Path.of("busybox"));
        }
        try (Stream<Path> files = Files.walk(kernelDir.resolve("lib/modules"))) {
            for (Path ko : files.filter(p -> MODULES.contains(p.getFileName().toString().replace(".ko", ""))).toList()) {
                Files.copy(ko, ird.resolve("mod").resolve(ko.getFileName()));
            }
        }
        try (InputStream init = PodLauncherTest.class.getResourceAsStream("/vm/stand-in-agent.sh")) {
            Files.copy(init, ird.resolve("init"));
        }
        ird.resolve("init").toFile().setExecutable(true, false);
        Process cpio = new ProcessBuilder("sh", "-c", "find . | cpio -o -H newc 2>/dev/null > " + img.resolve("initramfs.cpio"))
                .directory(ird.toFile()).inheritIO().start();
        assertEquals(0, cpio.waitFor());
        try (Stream<Path> boot = Files.list(kernelDir.resolve("boot"))) {
            Files.copy(boot.filter(p -> p.getFileName().toString().startsWith("vmlinuz-")).findFirst().orElseThrow(),
                    img.resolve("vmlinuz"), StandardCopyOption.REPLACE_EXISTING);
        }
        Files.writeString(img.resolve("image.digest"), "sha256:stand-in-1\n");
        // the kernel's own messages are wanted in the console (no "quiet"): they show the hot-plugged disk
        Files.writeString(img.resolve("kernel.cmdline"), "init=/init\n");
        return img;
    }

    @Test
    void bootHotPlugReconnectAndPowerOff() throws Exception {
        Optional<Path> kernel = kernelDir();
        Requirements.require(kernel.isPresent(), "a Debian cloud kernel unpacked in $JRUNC_VM_KERNEL_DIR (`make vm-image`"
                + " fills build/vm-image/kernel, which `make test` names) or build/vm/kernel (`make test-vm` fills it)");
        Requirements.require(Files.isExecutable(JruncVm.BIN), JruncVm.BIN + ": `make build` makes it");
        VmHost.requireBusybox();
        VmHost.requireQemu();
        Requirements.requireCommands("cpio", "cpio");
        Path img = image(kernel.get());
        Path bundle = PodVmTest.busyboxBundle(work.resolve("bundle"));
        vm = new JruncVm(work);
        Path podDir = vm.root().resolve("pods/p1");

        vm.ok("pod", "create", "--name", "p1", "--memory", "128m", "--kernel", img.resolve("vmlinuz").toString(),
                "--initrd", img.resolve("initramfs.cpio").toString());
        // the first container boots the VM; its image is hot-plugged into the running guest
        vm.ok("create", "--pod", "p1", "--name", "c1", bundle.toString());
        JsonNode pod = vm.json("pod", "inspect", "p1");
        assertEquals("running", pod.path("state").asText(), pod.toString());
        assertEquals("running", pod.path("vmStatus").asText());
        assertEquals("fake 1.0", pod.path("agent").asText());
        assertEquals("sha256:stand-in-1", pod.path("bootedDigest").asText());
        assertFalse(pod.path("imageNewer").asBoolean());
        assertTrue(pod.path("vmMemoryMiB").asInt() > 128, "the VM has more than the pod's memory: " + pod);
        // the guest logs the new disk when its hot-plug handler has run, which may follow Create's answer
        String console = Files.readString(podDir.resolve("console.log"));
        for (int i = 0; i < 100 && !console.matches("(?s).*sd \\d+:\\d+:\\d+:\\d+: \\[sda\\].*"); i++) {
            Thread.sleep(200);
            console = Files.readString(podDir.resolve("console.log"));
        }
        assertTrue(console.contains("Command line: console=ttyS0 panic=-1 init=/init"), "kernel.cmdline beside the image is used");
        assertTrue(console.contains("fake-agent: port /dev/vport"), "the port named jrunc.agent was found in the guest");
        assertTrue(console.contains("fake-agent: answered Configure"), "the monitor configured the pod");
        assertTrue(console.contains("fake-agent: answered Create"));
        assertTrue(console.matches("(?s).*sd \\d+:\\d+:\\d+:\\d+: \\[sda\\].*"), "the guest saw the hot-plugged disk");

        // an installed image newer than the booted one is reported
        Files.writeString(img.resolve("image.digest"), "sha256:stand-in-2\n");
        pod = vm.json("pod", "inspect", "p1");
        assertTrue(pod.path("imageNewer").asBoolean(), pod.toString());

        // the monitor's JVM starts from the launcher's AOT cache for run and create (make launcher-vm
        // builds it beside the jars): named on its command line and mapped
        long monitorPid = pod.path("monitorPid").asLong();
        Path runCache = JruncVm.BIN.getParent().resolveSibling("lib-vm").resolve("jrunc-vm-run.aot").toRealPath();
        String cmdline = Files.readString(Path.of("/proc/" + monitorPid + "/cmdline")).replace('\0', ' ');
        assertTrue(cmdline.contains("-XX:AOTCache=" + runCache), cmdline);
        String maps = Files.readString(Path.of("/proc/" + monitorPid + "/maps"));
        assertTrue(maps.contains(runCache.toString()), "the monitor's JVM mapped " + runCache);
        // started through setsid(1), it leads a session of its own (the sixth field of its stat is its
        // pid) and bound no native function for it: the FFM linker, whose start a first downcall pays,
        // was never set up (its symbol lookup library is not mapped)
        String stat = Files.readString(Path.of("/proc/" + monitorPid + "/stat"));
        assertEquals(Long.toString(monitorPid), stat.substring(stat.lastIndexOf(')') + 2).split(" ")[3], "session of " + stat);
        assertFalse(maps.contains("libsyslookup"), "the monitor made a downcall before serving");

        // kill -9 the monitor: qemu stays, the next command starts a new monitor that takes it over
        long qemuPid = pod.path("qemuPid").asLong();
        ProcessHandle monitor = ProcessHandle.of(monitorPid).orElseThrow();
        monitor.destroyForcibly();
        monitor.onExit().get(30, TimeUnit.SECONDS);
        pod = vm.json("pod", "inspect", "p1");
        assertEquals("running", pod.path("state").asText());
        assertNotEquals(monitorPid, pod.path("monitorPid").asLong());
        assertEquals(qemuPid, pod.path("qemuPid").asLong());
        assertTrue(Files.readString(podDir.resolve("monitor.log")).contains("taking over qemu " + qemuPid));

        // rm unplugs the disk (qemu tells the guest by a virtio-scsi event) and frees the name
        vm.ok("rm", "c1");
        assertFalse(Files.exists(podDir.resolve("containers/c1")));

        // pod stop: the agent powers the VM off; nothing but the pod's state is left
        vm.ok("pod", "stop", "p1");
        assertFalse(ProcessHandle.of(qemuPid).map(ProcessHandle::isAlive).orElse(false), "qemu exited");
        String log = Files.readString(podDir.resolve("monitor.log"));
        assertFalse(log.contains("QMP quit"), "qemu powered off by itself: " + log);
        for (String gone : List.of("monitor.sock", "qmp.sock", "agent.sock")) {
            assertFalse(Files.exists(podDir.resolve(gone)), gone);
        }
        assertEquals("stopped", vm.json("pod", "inspect", "p1").path("state").asText());
        vm.ok("pod", "rm", "p1");
        assertFalse(Files.exists(podDir));
    }

    /**
     * The image's initramfs without the agent's root beside it (a copy of vmlinuz, initrd.cpio and
     * kernel.cmdline alone, given with --kernel/--initrd): the initramfs's init finds no pmem device,
     * says so and ends, the kernel panics and qemu exits; `pod start` fails with the init's own line,
     * and nothing of the boot is left running or behind.
     */
    @Test
    void anImageWithoutItsAgentRootFailsWithTheInitsWords() throws Exception {
        VmHost.requirePods();
        Path img = Files.createDirectories(work.resolve("no-agent-root"));
        for (String file : List.of("vmlinuz", "initrd.cpio", "kernel.cmdline")) {
            Files.copy(VmHost.IMAGE.resolve(file), img.resolve(file));
        }
        vm = new JruncVm(work);
        Path podDir = vm.root().resolve("pods/p1");
        vm.ok("pod", "create", "--name", "p1", "--kernel", img.resolve("vmlinuz").toString(),
                "--initrd", img.resolve("initrd.cpio").toString());
        JruncVm.Result start = vm.run("pod", "start", "p1");
        assertEquals(125, start.code(), start.toString());
        assertTrue(start.err().contains("says: jrunc-init: no /dev/pmem0 after 5 s: the VM has no virtio-pmem device with the"
                + " agent's root (agent-root.img); the agent cannot start"), start.toString());
        assertEquals(1, start.err().strip().lines().count(), "one line: " + start);
        JsonNode pod = vm.json("pod", "inspect", "p1");
        assertEquals("stopped", pod.path("state").asText(), pod.toString());
        try (Stream<ProcessHandle> all = ProcessHandle.allProcesses()) {
            List<String> left = all.map(h -> h.info().commandLine().orElse(""))
                    .filter(c -> c.contains(podDir.toString())).toList();
            assertEquals(List.of(), left, "qemu or the monitor outlived the failed start");
        }
        for (String gone : List.of("monitor.sock", "qmp.sock", "agent.sock")) {
            assertFalse(Files.exists(podDir.resolve(gone)), gone);
        }
    }
}
