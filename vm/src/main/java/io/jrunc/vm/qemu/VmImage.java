package io.jrunc.vm.qemu;

import io.jrunc.vm.VmException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * The VM image a pod boots: a kernel and an initramfs (`make vm-image` writes them to build/vm-image/,
 * `make install` to $(PREFIX)/share/jrunc-vm), and beside them the files the image build writes:
 * {@value #AGENT_ROOT} (the agent's root file system, which the VM gets as a virtio-pmem device and the
 * initramfs's init mounts; an image whose initramfs holds the agent itself has none),
 * {@value #DIGEST} (one line, the image's digest, which a pod records at boot and `pod inspect` compares
 * with the installed one) and, optionally, {@value #CMDLINE} (what the agent needs on the kernel command
 * line, appended to jrunc-vm's own).
 *
 * <p>Found without being told: --kernel/--initrd first (the agent's root then is the
 * {@value #AGENT_ROOT} beside the initramfs, if there is one); else the directory named by
 * $JRUNC_VM_IMAGE; else, walking up from jrunc-vm's own jar, share/jrunc-vm (installed under PREFIX) and
 * build/vm-image (the source tree).
 *
 * @param agentRoot null: the initramfs is the agent's root
 */
public record VmImage(Path kernel, Path initrd, AgentRoot agentRoot, String digest, String cmdline) {
    /** The agent's root file system image and its size, which the VM's memory device takes whole. */
    public record AgentRoot(Path file, long bytes) {}

    public static final String AGENT_ROOT = "agent-root.img";
    public static final String KERNEL = "vmlinuz";
    /** Uncompressed first (fastest to unpack under emulation), then lz4. */
    public static final List<String> INITRDS = List.of("initramfs.cpio", "initrd.cpio", "initramfs.cpio.lz4", "initrd.cpio.lz4", "initrd.img");
    public static final String DIGEST = "image.digest";
    public static final String CMDLINE = "kernel.cmdline";
    public static final String UNKNOWN_DIGEST = "unknown";
    /**
     * What the guest agent's image boots with today (its java is /init's runtime, found through
     * LD_LIBRARY_PATH before /proc exists, its arguments read from an @argfile),
     * used when the image carries no {@value #CMDLINE} file. The image build should write that file so
     * that this constant can go.
     */
    public static final String DEFAULT_AGENT_CMDLINE = "quiet init=/init oops=panic LD_LIBRARY_PATH=/jre/lib -- @/jrunc/args";

    /** The directories searched, in order, when no --kernel is given. */
    public static List<Path> searchPath() {
        java.util.LinkedHashSet<Path> dirs = new java.util.LinkedHashSet<>();
        String env = System.getenv("JRUNC_VM_IMAGE");
        if (env != null && !env.isEmpty()) {
            dirs.add(Path.of(env));
        }
        try {
            Path jar = Path.of(VmImage.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            // installed: PREFIX/lib/jrunc-vm/jrunc-vm.jar -> PREFIX/share/jrunc-vm; the source tree:
            // build/lib-vm/jrunc-vm.jar or vm/target/classes -> build/vm-image
            Path a = jar.getParent();
            for (int i = 0; i < 4 && a != null; i++, a = a.getParent()) {
                dirs.add(a.resolve("share/jrunc-vm").normalize());
                dirs.add(a.resolve("vm-image").normalize());
                dirs.add(a.resolve("build/vm-image").normalize());
            }
        } catch (Exception e) {
            // no code source (an unusual class loader): only the environment and the flags then
        }
        return List.copyOf(dirs);
    }

    public static VmImage locate(Path kernelFlag, Path initrdFlag) throws VmException {
        if (kernelFlag != null || initrdFlag != null) {
            if (kernelFlag == null || initrdFlag == null) {
                throw new VmException("--kernel and --initrd go together: give both or neither");
            }
            if (!Files.isReadable(kernelFlag)) {
                throw new VmException("--kernel " + kernelFlag + ": no such readable file");
            }
            if (!Files.isReadable(initrdFlag)) {
                throw new VmException("--initrd " + initrdFlag + ": no such readable file");
            }
            return at(kernelFlag.toAbsolutePath(), initrdFlag.toAbsolutePath());
        }
        for (Path dir : searchPath()) {
            Path kernel = dir.resolve(KERNEL);
            if (!Files.isReadable(kernel)) {
                continue;
            }
            for (String name : INITRDS) {
                if (Files.isReadable(dir.resolve(name))) {
                    return at(kernel.toAbsolutePath(), dir.resolve(name).toAbsolutePath());
                }
            }
        }
        List<Path> looked = searchPath().stream().filter(d -> d.endsWith("vm-image") || d.endsWith("share/jrunc-vm"))
                .filter(d -> Files.isDirectory(d.getParent())).toList();
        throw new VmException("no VM image found (" + KERNEL + " and " + INITRDS.getFirst() + " in " + looked
                + "): run `make vm-image`, or give --kernel and --initrd");
    }

    static VmImage at(Path kernel, Path initrd) {
        return new VmImage(kernel, initrd, agentRootBeside(initrd), digestBeside(kernel),
                read(kernel.resolveSibling(CMDLINE)).orElse(DEFAULT_AGENT_CMDLINE));
    }

    private static AgentRoot agentRootBeside(Path initrd) {
        Path file = initrd.resolveSibling(AGENT_ROOT);
        try {
            return Files.isReadable(file) ? new AgentRoot(file, Files.size(file)) : null;
        } catch (IOException e) {
            return null;
        }
    }

    /** The digest file beside the image, or {@value #UNKNOWN_DIGEST}. */
    public static String digestBeside(Path kernel) {
        return read(kernel.resolveSibling(DIGEST)).orElse(UNKNOWN_DIGEST);
    }

    private static Optional<String> read(Path file) {
        try {
            return Optional.of(Files.readString(file).strip()).filter(s -> !s.isEmpty());
        } catch (IOException e) {
            return Optional.empty();
        }
    }
}
