package io.jrunc.vm.qemu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.jrunc.testsupport.Requirements;
import io.jrunc.vm.spec.RootfsImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The QMP client against a real qemu: cheap, since nothing boots (-machine none starts in under a
 * second; -machine pc -S builds the machine and stays paused, with no guest code run). Needs qemu-system-x86_64
 * (Debian qemu-system-x86): without it, the tests fail under CI=true and skip elsewhere.
 */
class QmpClientTest {
    @TempDir
    Path dir;
    Process qemu;
    /** Every qemu a test started (one test starts several in turn): none outlives it. */
    final List<Process> started = new ArrayList<>();

    boolean startedVirtiofsd;

    @AfterEach
    void tearDown() throws InterruptedException, IOException {
        if (startedVirtiofsd) {
            Virtiofsd.stopAll(dir);
        }
        for (Process p : started) {
            if (p.isAlive()) {
                p.destroyForcibly();
                p.waitFor(10, TimeUnit.SECONDS);
            }
        }
    }

    QmpClient start(String... machine) throws Exception {
        Requirements.requireCommands("qemu-system-x86", QemuCommand.BINARY);
        Path socket = dir.resolve("qmp.sock");
        List<String> cmd = new ArrayList<>(List.of(QemuCommand.BINARY, "-nodefaults", "-no-user-config", "-display", "none"));
        cmd.addAll(List.of(machine));
        cmd.addAll(List.of("-qmp", "unix:" + socket + ",server=on,wait=off"));
        qemu = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(dir.resolve("qemu.log").toFile()).start();
        started.add(qemu);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!Files.exists(socket)) {
            assertTrue(qemu.isAlive(), () -> "qemu exited: " + read(dir.resolve("qemu.log")));
            assertTrue(System.nanoTime() < deadline, "no QMP socket");
            Thread.sleep(20);
        }
        return QmpClient.connect(socket, Duration.ofSeconds(20));
    }

    static String read(Path p) {
        try {
            return Files.readString(p);
        } catch (IOException e) {
            return "";
        }
    }

    @Test
    void statusThenQuit() throws Exception {
        try (QmpClient qmp = start("-machine", "none")) {
            assertEquals("running", qmp.status());
            qmp.quit();
            assertTrue(qemu.waitFor(10, TimeUnit.SECONDS), "qemu exits on quit");
            assertEquals(0, qemu.exitValue());
            IOException after = assertThrows(IOException.class, qmp::status);
            assertTrue(after.getMessage().contains("closed"), after.getMessage());
        }
    }

    /**
     * A template's save and restore, as PodTemplate does them: the VM's RAM a file mapped shared, the
     * state saved without it (x-ignore-shared) to a path the shell would split, then a second qemu
     * mapping the file private loads the state and runs; the file is what the first VM left.
     */
    @Test
    void aStateSavedWithoutItsSharedRamIsLoadedIntoAQemuMappingThatRamPrivate() throws Exception {
        Path ram = dir.resolve("ram");
        Path state = dir.resolve("the state's file");
        try (QmpClient qmp = start("-machine", "q35,accel=tcg,memory-backend=m", "-S", "-object",
                "memory-backend-file,id=m,size=64M,mem-path=" + ram + ",share=on")) {
            qmp.saveState(state, Duration.ofSeconds(30));
            assertEquals("postmigrate", qmp.status(), "a saved VM stays stopped");
            qmp.quit();
            assertTrue(qemu.waitFor(10, TimeUnit.SECONDS));
        }
        assertTrue(Files.size(state) > 0 && Files.size(state) < 8 << 20, "the devices alone: " + Files.size(state) + " bytes");
        assertEquals(64 << 20, Files.size(ram));
        try (QmpClient qmp = start("-machine", "q35,accel=tcg,memory-backend=m", "-incoming", "defer", "-object",
                "memory-backend-file,id=m,size=64M,mem-path=" + ram + ",share=off")) {
            assertEquals("inmigrate", qmp.status());
            qmp.loadState(state, Duration.ofSeconds(30));
            assertEquals("running", qmp.status(), "a loaded VM runs on");
            qmp.quit();
            assertTrue(qemu.waitFor(10, TimeUnit.SECONDS));
        }
        // a state that is not one fails in one line, the qemu left waiting
        Path bad = Files.writeString(dir.resolve("bad"), "not a state");
        try (QmpClient qmp = start("-machine", "q35,accel=tcg,memory-backend=m", "-incoming", "defer", "-object",
                "memory-backend-file,id=m,size=64M,mem-path=" + ram + ",share=off")) {
            IOException e = assertThrows(IOException.class, () -> qmp.loadState(bad, Duration.ofSeconds(30)));
            assertTrue(e.getMessage().startsWith("loading the VM's state"), e.getMessage());
        }
    }

    @Test
    void anErrorAnswerCarriesQemusDescription() throws Exception {
        try (QmpClient qmp = start("-machine", "none")) {
            IOException e = assertThrows(IOException.class, () -> qmp.execute("no-such-command", null));
            assertTrue(e.getMessage().startsWith("no-such-command: ") && e.getMessage().contains("has not been found"), e.getMessage());
            assertEquals("running", qmp.status(), "the connection goes on");
        }
    }

    @Test
    void aDiskIsHotPluggedReadOnlyWithItsSerial() throws Exception {
        Requirements.requireCommands("e2fsprogs", "mkfs.ext4");
        Path rootfs = Files.createDirectories(dir.resolve("rootfs/bin"));
        Files.writeString(rootfs.resolve("hello"), "hi\n");
        Path image = dir.resolve("rootfs.img");
        RootfsImage.make(dir.resolve("rootfs"), image);
        assertTrue(Files.size(image) >= 16 << 20);

        try (QmpClient qmp = start("-machine", "q35,accel=tcg", "-S", "-device", "virtio-scsi-pci,id=" + QemuCommand.DISK_CONTROLLER)) {
            assertEquals("prelaunch", qmp.status());
            String serial = "jr0123456789abcdef";
            qmp.attachDisk(serial, image);
            JsonNode node = null;
            for (JsonNode n : qmp.execute("query-named-block-nodes", null)) {
                if (serial.equals(n.path("node-name").asText())) {
                    node = n;
                }
            }
            assertTrue(node != null, "blockdev node " + serial);
            assertTrue(node.path("ro").asBoolean(), "attached read-only: " + node);
            assertEquals(image.toString(), node.path("file").asText());
            String device = "/machine/peripheral/" + serial;
            assertEquals("scsi-hd", qmp.execute("qom-get", QmpClient.args().put("path", device).put("property", "type")).asText());
            assertEquals(serial, qmp.execute("qom-get", QmpClient.args().put("path", device).put("property", "serial")).asText());
            String bus = qmp.execute("qom-get", QmpClient.args().put("path", device).put("property", "parent_bus")).asText();
            assertTrue(bus.endsWith("/" + QemuCommand.DISK_CONTROLLER + ".0"), bus);

            IOException again = assertThrows(IOException.class, () -> qmp.attachDisk(serial, image));
            assertTrue(again.getMessage().contains(serial) || again.getMessage().contains("uplicate"), again.getMessage());

            // A SCSI disk leaves without the guest's part (this guest is paused and would never answer an
            // ACPI unplug): device and node are gone within the wait
            long t0 = System.nanoTime();
            qmp.detachDisk(serial, Duration.ofSeconds(5));
            assertTrue(System.nanoTime() - t0 < Duration.ofSeconds(3).toNanos(), "no guest waited for");
            for (JsonNode n : qmp.execute("query-named-block-nodes", null)) {
                assertNotEquals(serial, n.path("node-name").asText(), "the node is deleted");
            }
            qmp.quit();
            assertTrue(qemu.waitFor(10, TimeUnit.SECONDS));
        }
    }

    @Test
    void disksAreUnpluggedTogether() throws Exception {
        // a container's image and writable layer, and a serial qemu never had (a create cut short)
        Path image = Files.write(dir.resolve("image.img"), new byte[1 << 20]);
        Path layer = Files.write(dir.resolve("layer.img"), new byte[1 << 20]);
        try (QmpClient qmp = start("-machine", "q35,accel=tcg", "-S", "-device", "virtio-scsi-pci,id=" + QemuCommand.DISK_CONTROLLER)) {
            qmp.attachDisk("jrimage", image);
            qmp.attachWritableDisk("jrlayer", layer);
            qmp.detachDisks(List.of("jrimage", "jrlayer", "jrnever"), Duration.ofSeconds(5));
            for (JsonNode n : qmp.execute("query-named-block-nodes", null)) {
                String name = n.path("node-name").asText();
                assertTrue(!name.equals("jrimage") && !name.equals("jrlayer"), "the nodes are deleted: " + name);
            }
            for (String id : List.of("jrimage", "jrlayer")) {
                IOException gone = assertThrows(IOException.class, () -> qmp.execute("qom-get",
                        QmpClient.args().put("path", "/machine/peripheral/" + id).put("property", "type")));
                assertTrue(gone.getMessage().contains("not found"), gone.getMessage());
            }
        }
    }

    @Test
    void aDiskNeverAttachedIsDetachedAtOnce() throws Exception {
        // What rm -f finds after a create killed before or during the hot-plug: no device (nothing to
        // wait for), or a blockdev node without its device (deleted, without waiting either).
        Path image = Files.write(dir.resolve("half.img"), new byte[4096]);
        try (QmpClient qmp = start("-machine", "q35,accel=tcg", "-S")) {
            long t0 = System.nanoTime();
            qmp.detachDisk("jrnever00000000000", Duration.ofSeconds(20));
            ObjectNode blockdev = QmpClient.args().put("driver", "raw").put("node-name", "jrhalf").put("read-only", true);
            blockdev.putObject("file").put("driver", "file").put("filename", image.toString()).put("read-only", true);
            qmp.execute("blockdev-add", blockdev);
            qmp.detachDisk("jrhalf", Duration.ofSeconds(20));
            long took = System.nanoTime() - t0;
            assertTrue(took < TimeUnit.SECONDS.toNanos(5), "no wait for a device qemu does not have: " + took / 1_000_000 + " ms");
            for (JsonNode n : qmp.execute("query-named-block-nodes", null)) {
                assertNotEquals("jrhalf", n.path("node-name").asText(), "the half-attached node is deleted");
            }
        }
    }

    @Test
    void aShareIsHotPluggedAgainstARealVirtiofsdAndEndedWithIt() throws Exception {
        Requirements.require(Files.isExecutable(Path.of(Virtiofsd.BINARY)), Virtiofsd.BINARY + " (qemu-system-common)");
        Path shared = Files.createDirectories(dir.resolve("shared"));
        String tag = "fs000000000001";
        try (QmpClient qmp = start("-machine", "q35,accel=tcg,memory-backend=ram0", "-object",
                "memory-backend-memfd,id=ram0,size=128M,share=on", "-m", "128M", "-S",
                "-device", QemuCommand.SHARE_BRIDGE)) {
            // no virtiofsd: the device cannot be added, and its chardev is taken back
            QmpClient.QmpException refused = assertThrows(QmpClient.QmpException.class,
                    () -> qmp.attachShare("fsnobody0000001", dir.resolve("nobody.sock")));
            assertTrue(refused.getMessage().contains("nobody.sock"), refused.getMessage());
            assertFalse(qmp.execute("query-chardev", null).toString().contains("fsnobody"), "no chardev left");

            Virtiofsd.start(dir, tag, shared, dir.resolve("virtiofsd.log"));
            startedVirtiofsd = true;
            assertFalse(Virtiofsd.processes("--socket-path=" + dir + "/").isEmpty(), "virtiofsd runs, found by its socket path");
            qmp.attachShare(tag, Virtiofsd.socket(dir, tag));
            // on the share bridge's bus (qemu names a bridge's bus after the bridge's id)
            assertEquals("/machine/peripheral/" + QemuCommand.SHARE_BUS + "/" + QemuCommand.SHARE_BUS,
                    qmp.execute("qom-get", QmpClient.args().put("path", "/machine/peripheral/" + tag).put("property", "parent_bus")).asText());

            // the bridge full (its other 31 slots taken by stand-in devices): the next share is refused
            // with qemu's one line, and its chardev is taken back
            for (int i = 1; i < 32; i++) {
                qmp.execute("device_add", QmpClient.args().put("driver", "virtio-rng-pci").put("id", "filler" + i)
                        .put("bus", QemuCommand.SHARE_BUS));
            }
            String full = "fs000000000002";
            Virtiofsd.start(dir, full, shared, dir.resolve("virtiofsd.log"));
            QmpClient.QmpException noSlot = assertThrows(QmpClient.QmpException.class,
                    () -> qmp.attachShare(full, Virtiofsd.socket(dir, full)));
            assertTrue(noSlot.getMessage().contains("no slot/function available"), noSlot.getMessage());
            assertFalse(noSlot.getMessage().contains("\n"), noSlot.getMessage());
            assertFalse(qmp.execute("query-chardev", null).toString().contains(full), "no chardev left");

            long t0 = System.nanoTime();
            qmp.detachShare("fsnever00000001", Duration.ofSeconds(20));
            assertTrue(System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(5), "a share qemu does not have is not waited for");

            Virtiofsd.stopAll(dir);
            assertEquals(List.of(), Virtiofsd.processes("--socket-path=" + dir + "/").stream()
                    .filter(h -> h.isAlive() && !read(Path.of("/proc", Long.toString(h.pid()), "stat")).contains(") Z")).toList());
            assertFalse(Files.exists(Virtiofsd.socket(dir, tag)), "its socket is removed");
        }
    }

    @Test
    void theVmHasACpuForItsAgentWhileTheHostHasMore() {
        assertEquals(2, QemuCommand.vmCpus(1, 2, true));
        assertEquals(2, QemuCommand.vmCpus(0, 2, true), "no CPUs named: one, and the agent's");
        assertEquals(2, QemuCommand.vmCpus(2, 2, true), "a pod as large as the host: the agent shares");
        assertEquals(1, QemuCommand.vmCpus(1, 1, true));
        assertEquals(5, QemuCommand.vmCpus(4, 8, true));
        assertEquals(8, QemuCommand.vmCpus(8, 4, true), "never fewer than the pod's");
        // under emulation, the pod's CPUs alone
        assertEquals(1, QemuCommand.vmCpus(1, 2, false));
        assertEquals(1, QemuCommand.vmCpus(0, 8, false));
        assertEquals(4, QemuCommand.vmCpus(4, 8, false));
    }

    @Test
    void commandLine() {
        VmImage image = new VmImage(Path.of("/img/vmlinuz"), Path.of("/img/initramfs.cpio"), null, "sha256:x", "init=/init");
        List<String> cmd = QemuCommand.build(image, 2, 256L << 20, Path.of("/run/jrunc-vm/pods/p"), false);
        String line = String.join(" ", cmd);
        assertTrue(line.contains("-machine q35,accel=tcg,memory-backend=ram0"), line);
        // shared RAM, for vhost-user-fs: the same size as -m
        assertTrue(line.contains("-object memory-backend-memfd,id=ram0,size=" + QemuCommand.vmMemoryMiB(256L << 20) + "M,share=on"), line);
        assertTrue(line.contains("-smp 2 "), "TCG: the pod's CPUs alone: " + line);
        assertTrue(line.contains("-cpu max"), "TCG runs the CPU model the agent's caches were trained in: " + line);
        // 256 MiB + 288 MiB fixed + 2% of 256 MiB (5.12, rounded up to a MiB)
        assertEquals(256 + 288 + 6, QemuCommand.vmMemoryMiB(256L << 20));
        assertEquals(12288 + 288 + 246, QemuCommand.vmMemoryMiB(12L << 30));
        assertEquals(384, QemuCommand.vmMemoryMiB(32L << 20), "a small pod's VM still has room to unpack the initramfs");
        assertTrue(line.contains("-m " + QemuCommand.vmMemoryMiB(256L << 20) + "M"), line);
        assertTrue(line.contains("-chardev socket,id=ctl,path=/run/jrunc-vm/pods/p/agent.sock,server=on,wait=off"), line);
        assertTrue(line.contains("virtserialport,bus=vser0.0,chardev=ctl,name=jrunc.agent"), line);
        assertTrue(line.contains("-device virtio-scsi-pci,id=" + QemuCommand.DISK_CONTROLLER), "the containers' disk bus: " + line);
        assertTrue(line.contains("-device virtio-balloon-pci,id=balloon0,free-page-reporting=on"), "freed pages back to the host: " + line);
        assertTrue(line.contains("-device pcie-pci-bridge,id=" + QemuCommand.SHARE_BUS + ",bus=pcie.0"), "the shares' hot-plug bus: " + line);
        assertTrue(line.contains("-qmp unix:/run/jrunc-vm/pods/p/qmp.sock,server=on,wait=off"), line);
        assertTrue(line.contains("-serial file:/run/jrunc-vm/pods/p/console.log"), line);
        assertTrue(line.contains("-append console=ttyS0 panic=-1 init=/init"), line);
        String kvm = String.join(" ", QemuCommand.build(image, 1, 1 << 30, Path.of("/p"), true));
        assertTrue(kvm.contains("accel=kvm") && kvm.contains("-cpu host"), kvm);
    }

    /**
     * The agent's root image: a private file mapping on a virtio-pmem device, beyond the RAM (maxmem =
     * RAM + the image, in whole MiB); a comma in its path doubled for qemu's option syntax.
     */
    @Test
    void agentRootOnPmem() {
        VmImage image = new VmImage(Path.of("/img,1/vmlinuz"), Path.of("/img,1/initrd.cpio"),
                new VmImage.AgentRoot(Path.of("/img,1/agent-root.img"), (120L << 20) + 1), "sha256:x", "quiet");
        List<String> cmd = QemuCommand.build(image, 1, 256L << 20, Path.of("/p"), false);
        long mib = QemuCommand.vmMemoryMiB(256L << 20);
        assertEquals(mib + "M,slots=1,maxmem=" + (mib + 121) + "M", cmd.get(cmd.indexOf("-m") + 1));
        String line = String.join(" ", cmd);
        assertTrue(line.contains("-object memory-backend-file,id=agentroot,mem-path=/img,,1/agent-root.img,size=121M,share=off"
                + " -device virtio-pmem-pci,id=agentroot0,memdev=agentroot"), line);
        assertEquals(1, cmd.stream().filter("-m"::equals).count(), line);
    }
}
