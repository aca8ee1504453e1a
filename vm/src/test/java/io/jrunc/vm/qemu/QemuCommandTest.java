package io.jrunc.vm.qemu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The accelerator and CPU model of a pod's qemu (which one this host gets is KvmTest's), the agent's
 * root device: the command line is checked.
 */
class QemuCommandTest {
    private static final VmImage IMAGE = new VmImage(Path.of("/img/vmlinuz"), Path.of("/img/initrd.cpio"), null,
            "digest", "quiet init=/init");

    private static String after(List<String> cmd, String flag) {
        int i = cmd.indexOf(flag);
        assertTrue(i >= 0 && i + 1 < cmd.size(), flag + " missing from " + cmd);
        assertEquals(i, cmd.lastIndexOf(flag), flag + " given twice in " + cmd);
        return cmd.get(i + 1);
    }

    @Test
    void kvmTakesTheHostsCpu() {
        List<String> cmd = QemuCommand.build(IMAGE, 2, 512L << 20, Path.of("/pod"), true);
        assertTrue(after(cmd, "-machine").startsWith("q35,accel=kvm,"), cmd.toString());
        assertEquals("host", after(cmd, "-cpu"));
    }

    @Test
    void withoutKvmTheEmulatedCpuIsMax() {
        // under TCG the guest's CPU is qemu's "max" model, the one the image's class data is made for
        List<String> cmd = QemuCommand.build(IMAGE, 1, 512L << 20, Path.of("/pod"), false);
        assertTrue(after(cmd, "-machine").startsWith("q35,accel=tcg,"), cmd.toString());
        assertEquals("max", after(cmd, "-cpu"));
    }

    /**
     * The agent's root is the agent-root.img beside the initramfs, when there: with it the VM gets the
     * pmem device, without it (an image whose initramfs is the agent's root) plain RAM and no device.
     */
    @Test
    void theAgentRootIsFoundBesideTheInitramfs(@TempDir Path dir) throws Exception {
        Path kernel = Files.writeString(dir.resolve("vmlinuz"), "k");
        Path initrd = Files.writeString(dir.resolve("initrd.cpio"), "i");
        VmImage without = VmImage.locate(kernel, initrd);
        assertEquals(null, without.agentRoot());
        List<String> plain = QemuCommand.build(without, 1, 512L << 20, Path.of("/pod"), false);
        assertEquals(QemuCommand.vmMemoryMiB(512L << 20) + "M", after(plain, "-m"));
        assertFalse(String.join(" ", plain).contains("virtio-pmem"), plain.toString());

        try (java.io.RandomAccessFile root = new java.io.RandomAccessFile(dir.resolve(VmImage.AGENT_ROOT).toFile(), "rw")) {
            root.setLength(8L << 20);
        }
        VmImage with = VmImage.locate(kernel, initrd);
        assertEquals(new VmImage.AgentRoot(dir.resolve(VmImage.AGENT_ROOT), 8L << 20), with.agentRoot());
        List<String> cmd = QemuCommand.build(with, 1, 512L << 20, Path.of("/pod"), false);
        assertTrue(after(cmd, "-m").endsWith(",slots=1,maxmem=" + (QemuCommand.vmMemoryMiB(512L << 20) + 8) + "M"), cmd.toString());
        assertTrue(String.join(" ", cmd).contains("-object memory-backend-file,id=agentroot,mem-path="
                + dir.resolve(VmImage.AGENT_ROOT) + ",size=8M,share=off -device virtio-pmem-pci,"), cmd.toString());
    }

    /**
     * A template's VM maps its two files shared, a VM restored from it private; neither reports free
     * pages (the file would be punched); otherwise the lines are the booted one's.
     */
    @Test
    void aTemplatesFilesAreSharedWhileItIsMadeAndPrivateInItsRestoredVms() {
        VmImage image = new VmImage(Path.of("/img/vmlinuz"), Path.of("/img/initrd.cpio"),
                new VmImage.AgentRoot(Path.of("/img/agent-root.img"), 8L << 20), "digest", "quiet");
        Path ram = Path.of("/root/template/ram"), root = Path.of("/root/template/agent-root.img");
        List<String> booted = QemuCommand.build(image, 1, 512L << 20, Path.of("/pod"), false);
        List<String> making = QemuCommand.build(image, 1, 512L << 20, Path.of("/pod"), false,
                new QemuCommand.TemplateMemory(ram, root, true));
        List<String> restored = QemuCommand.build(image, 1, 512L << 20, Path.of("/pod"), false,
                new QemuCommand.TemplateMemory(ram, root, false));
        long mib = QemuCommand.vmMemoryMiB(512L << 20);
        assertTrue(booted.contains("memory-backend-memfd,id=ram0,size=" + mib + "M,share=on"), booted.toString());
        assertTrue(making.contains("memory-backend-file,id=ram0,size=" + mib + "M,mem-path=/root/template/ram,share=on"),
                making.toString());
        assertTrue(restored.contains("memory-backend-file,id=ram0,size=" + mib + "M,mem-path=/root/template/ram,share=off"),
                restored.toString());
        assertTrue(making.contains("memory-backend-file,id=agentroot,mem-path=/root/template/agent-root.img,size=8M,share=on"),
                making.toString());
        assertTrue(restored.contains("memory-backend-file,id=agentroot,mem-path=/root/template/agent-root.img,size=8M,share=off"),
                restored.toString());
        assertTrue(booted.contains("virtio-balloon-pci,id=balloon0,free-page-reporting=on"), booted.toString());
        for (List<String> line : List.of(making, restored)) {
            assertTrue(line.contains("virtio-balloon-pci,id=balloon0,free-page-reporting=off"), line.toString());
            assertEquals(booted.size(), line.size(), "the same arguments but the memory's and the balloon's: " + line);
        }
    }
}
