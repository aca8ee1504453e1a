package io.jrunc.vm.qemu;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The qemu-system-x86_64 command line of a pod's VM.
 *
 * <ul>
 * <li>Machine type {@code q35} ({@link #MACHINE}): under TCG the guest enables its PCI devices at once,
 * where on {@code pc} each one waited for the ACPI interrupt routing the guest's interpreter runs (the
 * virtio_pci driver's binding of a pod's five devices: 0.03-0.06 s against 0.66-0.74 s). q35 cannot
 * hot-plug into its root bus, so the shared directories' devices go on a PCIe-to-PCI bridge made at
 * boot ({@link #SHARE_BUS}, 32 slots), which the guest hot-plugs through ACPI: one bridge, where a root
 * port per device would cost every boot (eight ports: 0.2 s), and a device ready or released in about
 * 0.1 s (against 0.2-0.3 s on {@code pc}). microvm cannot hot-plug (qemu 7.2).
 * <li>The containers' disks hang off one virtio-scsi controller ({@link #DISK_CONTROLLER}) made at boot:
 * a disk added to or removed from its bus is a SCSI event the guest handles at once, where a
 * virtio-blk disk is a PCI hot-plug that waits for the guest's ACPI (measured under TCG with this
 * kernel, busybox as /init: attach to the guest's /sys/block 53-137 ms against 271-377 ms for
 * virtio-blk, device_del to DEVICE_DELETED 54-58 ms against 397-431 ms).
 * <li>KVM where {@link Kvm} finds that it works, TCG otherwise.
 * <li>The agent's channel: a virtio-serial port named {@value #AGENT_PORT} backed by a Unix socket
 * chardev (server=on, wait=off: qemu listens, the monitor connects; one client at a time).
 * <li>The RAM a shared memfd ({@link #MEMORY_ID}), so that shared directories (virtio-fs) can be
 * hot-plugged.
 * <li>QMP on a Unix socket; the serial console to console.log; no display; no reboot (a guest reboot
 * ends qemu, as power-off does). The network device is added by the monitor from the pod's network
 * (io.jrunc.vm.network.PodNetworks).
 * </ul>
 */
public final class QemuCommand {
    public static final String BINARY = "qemu-system-x86_64";
    /** The virtio-scsi controller's id; its bus, {@code disks.0}, takes the containers' disks. */
    public static final String DISK_CONTROLLER = "disks";
    /** The machine type (see above). */
    public static final String MACHINE = "q35";
    /** The PCIe-to-PCI bridge the shared directories' vhost-user-fs devices are hot-plugged into. */
    public static final String SHARE_BUS = "shares";
    /** The {@code -device} argument that makes the share bridge on q35's root bus. */
    public static final String SHARE_BRIDGE = "pcie-pci-bridge,id=" + SHARE_BUS + ",bus=pcie.0";
    /** The virtio-serial port's name; the agent finds its /dev/vportNpM by it in /sys/class/virtio-ports. */
    public static final String AGENT_PORT = "jrunc.agent";

    /**
     * What the VM needs beyond the pod's memory, whatever its size, so that the pod's containers have
     * what the pod was given (the rule: at ready, MemAvailable >= the pod's memory less 3%).
     * Measured at ready (guest /proc/meminfo through `pod inspect`, 1 vCPU, Debian 6.1 cloud kernel,
     * this image; docs/vm.md "Memory"): of a 512 MiB VM 186 MiB were not available: 43 MiB the kernel
     * kept before MemTotal, the initramfs, which stays in RAM as shmem (78 MiB), the agent's JVM (48
     * MiB anonymous, 55 MiB resident), slab 17 MiB. From about 1 GiB the kernel also holds back its
     * high watermark (min_free_kbytes raised to 44 MiB for transparent huge pages; high 66-72 MiB),
     * which MemAvailable subtracts: 320 MiB unavailable of a 1280 MiB VM, 376 of 3328. So: 192 MiB fixed
     * + 80 MiB for the watermark + 16 MiB for the agent's growth under work (55 to 71 MiB resident in
     * AgentVmTest) = {@value #AGENT_OVERHEAD_BYTES} bytes, and {@link #PER_PAGE_OVERHEAD_PERCENT}% of
     * the pod's memory for what grows with it (a struct page of 64 bytes per 4 KiB page, 1.56%, and
     * page tables). Too much only costs host memory the guest never touches (qemu allocates lazily);
     * too little breaks the promise. Those figures are of an image whose initramfs was the agent's root;
     * with the image's agent root on its pmem device about 128 MiB less is unavailable (docs/vm.md,
     * "Memory"), which this overhead, kept, leaves to the containers.
     */
    public static final long AGENT_OVERHEAD_BYTES = 288L << 20;
    /** The part of the overhead that grows with the pod's memory, in percent of it (see above). */
    public static final long PER_PAGE_OVERHEAD_PERCENT = 2;
    /**
     * The least a VM boots with, whatever the pod's memory: the kernel unpacks the initramfs (an
     * uncompressed cpio of about 91 MiB) into its root while the cpio itself is still in RAM, and fails
     * with "Initramfs unpacking failed: write error" below about 325 MiB (measured with this image of
     * 95.4 MB: 321 MiB fails, 330 MiB unpacks), which a small pod's memory plus the overhead (32 MiB:
     * 321 MiB) does not reach. 384 MiB leaves room for the image to grow a little; the floor costs the
     * host nothing the guest does not touch. An image with an agent root has a 3 MB initramfs and needs
     * no floor, but one whose initramfs is the agent's root still does.
     */
    public static final long MIN_VM_BYTES = 384L << 20;
    /** The pod's memory when none is given (podman's pods have no default; a VM needs one). */
    public static final long DEFAULT_POD_MEMORY = 512L << 20;

    /**
     * The guest's RAM: a memfd shared with other processes (share=on), because a vhost-user-fs
     * device's virtiofsd reads and writes the guest's buffers in place. Every pod gets it, since a
     * container with a shared directory may join a running pod and the RAM's backend is fixed at boot.
     * Still allocated on first touch, as anonymous memory is.
     */
    static final String MEMORY_ID = "ram0";

    private QemuCommand() {
    }

    /** The VM's memory in MiB: the pod's plus the overhead, rounded up to a MiB, at least {@link #MIN_VM_BYTES}. */
    public static long vmMemoryMiB(long podMemoryBytes) {
        long bytes = Math.max(MIN_VM_BYTES,
                podMemoryBytes + AGENT_OVERHEAD_BYTES + podMemoryBytes / 100 * PER_PAGE_OVERHEAD_PERCENT);
        return (bytes + (1 << 20) - 1) >> 20;
    }

    /**
     * The VM's CPUs: the pod's, and under KVM one more for the agent while the host has more CPUs than
     * the pod (the agent gives its containers the first {@code podCpus} alone: ConfigurePodRequest's
     * container_cpus). A JVM's start, its JIT and the guest's module loading then run beside the
     * containers and beside the agent's own calls (under emulation a one-CPU pod's first Create took
     * 2.1-4.4 s, and 1.1-1.8 s with the second CPU: docs/PERFORMANCE.md, "A CPU for the agent"). Not
     * under emulation (TCG): there a pod booted with the extra CPU now and then locked up at the agent's
     * start, both CPUs spinning in the kernel for minutes (the guest's soft-lockup watchdog on its
     * console), which a one-CPU pod never did. A pod as large as the host gets no extra CPU: the agent
     * shares.
     */
    public static int vmCpus(int podCpus, boolean kvm) {
        return vmCpus(podCpus, Runtime.getRuntime().availableProcessors(), kvm);
    }

    static int vmCpus(int podCpus, int hostCpus, boolean kvm) {
        int cpus = Math.max(1, podCpus);
        return kvm && cpus < hostCpus ? cpus + 1 : cpus;
    }

    /** The memory-backend-file and device ids of the agent's root. */
    static final String AGENT_ROOT_ID = "agentroot";

    /**
     * The VM's RAM ({@code -m}) and, given the image's agent root, the device that carries it: a
     * virtio-pmem device whose memory is the image file, mapped private (share=off: what the guest
     * writes stays in this qemu's memory and never reaches the file, which every pod shares). The guest
     * mounts its ext4 with DAX, so reading the agent's files reads the host's page cache of the file
     * in place, and the pages are the same for every pod. The device's memory lies outside the RAM, in
     * the machine's device memory: {@code maxmem} leaves room for it, with one slot. A comma in the
     * file's path is doubled, as qemu's option syntax wants.
     */
    public static List<String> memory(long mib, VmImage.AgentRoot agentRoot) {
        return memory(mib, agentRoot, null);
    }

    private static List<String> memory(long mib, VmImage.AgentRoot agentRoot, TemplateMemory template) {
        if (agentRoot == null) {
            return List.of("-m", mib + "M");
        }
        long rootMiB = (agentRoot.bytes() + (1 << 20) - 1) >> 20;
        return List.of("-m", mib + "M,slots=1,maxmem=" + (mib + rootMiB) + "M",
                "-object", "memory-backend-file,id=" + AGENT_ROOT_ID + ",mem-path="
                        + optionValue(template == null ? agentRoot.file() : template.agentRootFile())
                        + ",size=" + rootMiB + "M,share=" + (template != null && template.making() ? "on" : "off"),
                "-device", "virtio-pmem-pci,id=" + AGENT_ROOT_ID + "0,memdev=" + AGENT_ROOT_ID);
    }

    /** A path as the value of a qemu option: a comma doubled, as qemu's option syntax wants. */
    private static String optionValue(Path path) {
        return path.toString().replace(",", ",,");
    }

    /**
     * The memory of a VM saved as a template or restored from one (io.jrunc.vm.monitor.PodTemplate):
     * its RAM and its agent root's device are files of the template, the RAM's and a copy of the
     * image's agent root, mapped shared while the template boots ({@code making}: what the guest
     * writes goes to the files) and private in every VM restored from it (the files' pages read in
     * place, one copy in the host's page cache for all of them, copied on the guest's first write). A
     * migration that skips shared memory then saves the devices alone, and a restore reads no memory.
     * Such a VM has no free page reporting: qemu 7.2 gives a reported page of file-backed RAM back by
     * punching a hole in the file, which every restored VM maps, so the files never change once the
     * template is made. Nor can its private RAM be shared with virtiofsd, which needs the guest's
     * writes in a shared mapping: a restored VM takes no shared directories.
     */
    public record TemplateMemory(Path ramFile, Path agentRootFile, boolean making) {
    }

    /**
     * @param podDir where the sockets and the console log go
     */
    public static List<String> build(VmImage image, int cpus, long podMemoryBytes, Path podDir, boolean kvm) {
        return build(image, cpus, podMemoryBytes, podDir, kvm, null);
    }

    /** The command line of a VM saved as a template or restored from one ({@code template} null: booted). */
    public static List<String> build(VmImage image, int cpus, long podMemoryBytes, Path podDir, boolean kvm,
            TemplateMemory template) {
        long mib = vmMemoryMiB(podMemoryBytes);
        String ram = template == null ? "memory-backend-memfd,id=" + MEMORY_ID + ",size=" + mib + "M,share=on"
                : "memory-backend-file,id=" + MEMORY_ID + ",size=" + mib + "M,mem-path=" + optionValue(template.ramFile())
                        + ",share=" + (template.making() ? "on" : "off");
        List<String> cmd = new ArrayList<>(List.of(BINARY,
                "-machine", MACHINE + ",accel=" + (kvm ? "kvm" : "tcg") + ",memory-backend=" + MEMORY_ID,
                "-object", ram,
                "-smp", Integer.toString(vmCpus(cpus, kvm)),
                "-nodefaults", "-no-user-config", "-no-reboot",
                "-display", "none",
                "-serial", "file:" + podDir.resolve("console.log"),
                "-kernel", image.kernel().toString(),
                "-initrd", image.initrd().toString(),
                "-append", ("console=ttyS0 panic=-1 " + image.cmdline()).strip(),
                "-device", "virtio-serial-pci,id=vser0",
                "-chardev", "socket,id=ctl,path=" + podDir.resolve("agent.sock") + ",server=on,wait=off",
                "-device", "virtserialport,bus=vser0.0,chardev=ctl,name=" + AGENT_PORT,
                "-device", "virtio-scsi-pci,id=" + DISK_CONTROLLER,
                // never inflated: the guest reports the pages it frees (the unpacked initramfs's archive
                // first, then what its containers free) and qemu gives them back to the host
                "-device", "virtio-balloon-pci,id=balloon0,free-page-reporting=" + (template == null ? "on" : "off"),
                "-device", SHARE_BRIDGE,
                "-qmp", "unix:" + podDir.resolve("qmp.sock") + ",server=on,wait=off"));
        cmd.addAll(memory(mib, image.agentRoot(), template));
        // Under TCG the CPU model the agent's class data and AOT cache were trained in: a cache holding
        // code for features the emulated CPU lacks dies with SIGILL. The agent
        // side trains and boots with -cpu max.
        cmd.addAll(List.of("-cpu", kvm ? "host" : "max"));
        return cmd;
    }
}
