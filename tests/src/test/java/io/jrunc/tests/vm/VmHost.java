package io.jrunc.tests.vm;

import io.jrunc.testsupport.Requirements;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * What the host-side VM tests need: the pod VM image, build/bin/jrunc-vm, qemu, busybox-static, e2fsprogs.
 * `make test` builds the image and the binary and `make deps` installs the packages, so under CI=true
 * anything missing fails the test class; elsewhere it skips, naming what is missing and how to get it.
 */
final class VmHost {
    private VmHost() {}

    /** The pod VM image: system property jrunc.vm.image (set by `make test`), else build/vm-image beside build/bin. */
    static final Path IMAGE = Path.of(System.getProperty("jrunc.vm.image",
            JruncVm.BIN.getParent().resolveSibling("vm-image").toString())).toAbsolutePath().normalize();

    /** The image's files a boot reads (scripts/vm-image.sh writes them). */
    static void requireImage() {
        for (String file : List.of("vmlinuz", "initrd.cpio", "kernel.cmdline")) {
            Requirements.require(Files.isRegularFile(IMAGE.resolve(file)), "the pod VM image (" + IMAGE.resolve(file)
                    + "): `make vm-image` builds it, or -Djrunc.vm.image names another");
        }
    }

    private static Boolean kvmBoots;

    /**
     * Whether the image's kernel boots under KVM here: booted without an initramfs to its "cannot mount
     * root" panic, which with panic=-1 ends qemu (a second or two under KVM). Where /dev/kvm is absent,
     * or qemu cannot set up its vCPU, or the kernel does not run on it, qemu fails or the boot does not
     * end within a minute. The pods' own choice (io.jrunc.vm.qemu.Kvm) is checked against this.
     */
    static synchronized boolean kvmBoots() throws Exception {
        if (kvmBoots == null) {
            Process p = new ProcessBuilder("qemu-system-x86_64", "-nodefaults", "-no-user-config", "-display", "none",
                    "-no-reboot", "-accel", "kvm", "-cpu", "host", "-m", "256", "-kernel", IMAGE.resolve("vmlinuz").toString(),
                    "-append", "panic=-1 quiet").redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            p.getOutputStream().close();
            boolean ended = p.waitFor(60, java.util.concurrent.TimeUnit.SECONDS);
            if (!ended) {
                p.destroyForcibly().waitFor();
            }
            kvmBoots = ended && p.exitValue() == 0;
        }
        return kvmBoots;
    }

    static void requireQemu() {
        Requirements.requireCommands("qemu-system-x86", "qemu-system-x86_64");
    }

    /** busybox-static, for the containers' root filesystems. */
    static void requireBusybox() {
        Requirements.require(Files.isExecutable(Path.of("/bin/busybox")),
                "/bin/busybox (the containers' rootfs): install the Debian package busybox-static (`make deps` does)");
    }

    /** Everything pods through build/bin/jrunc-vm need: the image, the binary, qemu, busybox, mkfs.ext4. */
    static void requirePods() {
        requireImage();
        Requirements.require(Files.isExecutable(JruncVm.BIN), JruncVm.BIN + ": `make build` makes it");
        requireQemu();
        requireBusybox();
        Requirements.requireCommands("e2fsprogs", "mkfs.ext4");
    }
}
