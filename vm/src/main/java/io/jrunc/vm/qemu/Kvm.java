package io.jrunc.vm.qemu;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Whether a pod's qemu can run under KVM on this host. A /dev/kvm that opens is not enough:
 * <ul>
 * <li>the CPU must offer hardware virtualisation (the {@code vmx} or {@code svm} flag in /proc/cpuinfo,
 * the check kata's {@code kata-runtime check} and libvirt's {@code virt-host-validate} make). Some
 * virtual machines have a /dev/kvm backed by a software implementation (the kvm_pvm module: the guest
 * kernel itself must be built for it), on which the stock guest kernel never boots;
 * <li>qemu must be able to set up a vCPU with the pod's CPU model. Where it cannot (nested
 * virtualisation without the MSRs qemu sets: "failed to set MSR 0x10a"), qemu aborts at once.
 * </ul>
 * The second is asked of qemu itself: the pod's machine and CPU model, stopped before the first
 * instruction ({@code -S}), told to quit over QMP on its standard input; 40-60 ms. The verdict is kept
 * in the state root for the host's boot ({@value #VERDICT_FILE}: the boot id, then "kvm" or "tcg" and
 * why), so that a pod's boot and {@code pod inspect} ask once.
 */
public final class Kvm {
    static final String VERDICT_FILE = "accelerator";
    private static final Path DEVICE = Path.of("/dev/kvm");
    private static final Path CPUINFO = Path.of("/proc/cpuinfo");
    private static final Path BOOT_ID = Path.of("/proc/sys/kernel/random/boot_id");
    private static final Duration PROBE_TIMEOUT = Duration.ofSeconds(20);

    /** A verdict: KVM or not, and why not (null when it is). */
    public record Verdict(boolean kvm, String reason) {
        public String accelerator() {
            return kvm ? "kvm" : "tcg";
        }
    }

    private Kvm() {
    }

    /** The verdict for this host: from the state root's record of this boot, else found out and recorded. */
    public static Verdict verdict(Path stateRoot) {
        if (!deviceOpens(DEVICE)) {
            return new Verdict(false, "no /dev/kvm that opens read-write");
        }
        String cpuinfo;
        try {
            cpuinfo = Files.readString(CPUINFO);
        } catch (IOException e) {
            return new Verdict(false, "/proc/cpuinfo not read: " + e.getMessage());
        }
        if (!hardwareVirtualisation(cpuinfo)) {
            return new Verdict(false, "the CPU has no vmx or svm flag (a /dev/kvm without hardware virtualisation)");
        }
        String bootId;
        try {
            bootId = Files.readString(BOOT_ID).strip();
        } catch (IOException e) {
            bootId = "";
        }
        Path file = stateRoot.resolve(VERDICT_FILE);
        Verdict recorded = read(file, bootId);
        if (recorded != null) {
            return recorded;
        }
        Verdict found = probe(probeCommand(), PROBE_TIMEOUT);
        record(file, bootId, found);
        return found;
    }

    /** The pod's machine and CPU model under KVM, stopped before its first instruction, QMP on stdio. */
    static List<String> probeCommand() {
        return List.of(QemuCommand.BINARY, "-machine", QemuCommand.MACHINE + ",accel=kvm", "-cpu", "host", "-nodefaults",
                "-no-user-config", "-display", "none", "-S", "-qmp", "stdio");
    }

    /** Runs {@code command}, tells it to quit over QMP, and judges by its exit within {@code timeout}: 0 is KVM. */
    static Verdict probe(List<String> command, Duration timeout) {
        Process p;
        try {
            p = new ProcessBuilder(command).redirectErrorStream(true).start();
        } catch (IOException e) {
            return new Verdict(false, "qemu did not start: " + e.getMessage());
        }
        try {
            try (OutputStream in = p.getOutputStream()) {
                in.write("{\"execute\":\"qmp_capabilities\"}\n{\"execute\":\"quit\"}\n".getBytes(StandardCharsets.US_ASCII));
            } catch (IOException e) {
                // qemu ended before reading: its exit status says why
            }
            // read beside the wait: a qemu that hangs in its set-up must not hold this call past the timeout
            FutureTask<String> output = new FutureTask<>(() -> {
                try (InputStream o = p.getInputStream()) {
                    return new String(o.readNBytes(64 << 10), StandardCharsets.UTF_8);
                }
            });
            Thread.ofVirtual().start(output);
            if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                return new Verdict(false, "qemu under KVM did not quit within " + timeout.toSeconds() + " s");
            }
            if (p.exitValue() == 0) {
                return new Verdict(true, null);
            }
            String text;
            try {
                text = output.get(1, TimeUnit.SECONDS);
            } catch (ExecutionException | TimeoutException e) {
                text = "";
            }
            return new Verdict(false, "qemu under KVM exited " + p.exitValue() + errorLine(text));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Verdict(false, "interrupted while asking qemu about KVM");
        } finally {
            p.destroyForcibly();
        }
    }

    /** qemu's first error line ("failed to set MSR ..."), as ": LINE", or nothing. */
    private static String errorLine(String output) {
        return output.lines().filter(l -> l.startsWith(QemuCommand.BINARY + ":")).findFirst()
                .map(l -> ": " + l.substring(QemuCommand.BINARY.length() + 1).strip()).orElse("");
    }

    /** Whether a cpuinfo text's flags name hardware virtualisation (Intel VT-x or AMD-V). */
    static boolean hardwareVirtualisation(String cpuinfo) {
        return cpuinfo.lines().filter(l -> l.startsWith("flags")).findFirst()
                .map(l -> List.of(l.substring(l.indexOf(':') + 1).strip().split("\\s+")))
                .map(flags -> flags.contains("vmx") || flags.contains("svm")).orElse(false);
    }

    /** /dev/kvm is a device (not a file someone left there) that this user may open read-write. */
    @SuppressWarnings("try") // opening the device is the test
    static boolean deviceOpens(Path device) {
        try {
            if (!Files.readAttributes(device, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS).isOther()) {
                return false;
            }
        } catch (IOException e) {
            return false;
        }
        // READ and WRITE without CREATE: a missing device is never made
        try (FileChannel ignored = FileChannel.open(device, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            return true;
        } catch (IOException | UnsupportedOperationException | SecurityException e) {
            return false;
        }
    }

    /** The recorded verdict of boot {@code bootId}, or null (none, another boot's, unreadable). */
    static Verdict read(Path file, String bootId) {
        try {
            List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
            if (bootId.isEmpty() || lines.size() < 2 || !lines.get(0).equals(bootId)) {
                return null;
            }
            return switch (lines.get(1)) {
                case "kvm" -> new Verdict(true, null);
                case "tcg" -> new Verdict(false, lines.size() > 2 ? lines.get(2) : "qemu under KVM failed");
                default -> null;
            };
        } catch (IOException e) {
            return null;
        }
    }

    /** Records {@code verdict} for boot {@code bootId} (whole or not at all); a root it cannot write is asked again next time. */
    static void record(Path file, String bootId, Verdict verdict) {
        if (bootId.isEmpty()) {
            return;
        }
        Path tmp = file.resolveSibling(VERDICT_FILE + ".tmp" + ProcessHandle.current().pid());
        try {
            Files.writeString(tmp, bootId + "\n" + verdict.accelerator() + "\n"
                    + (verdict.reason() == null ? "" : verdict.reason() + "\n"), StandardCharsets.UTF_8);
            Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            try {
                Files.deleteIfExists(tmp);
            } catch (IOException ignored) {
                // nothing more to undo
            }
        }
    }
}
