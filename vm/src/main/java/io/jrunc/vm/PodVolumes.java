package io.jrunc.vm;

import io.jrunc.agent.api.Volumes;
import io.jrunc.vm.spec.Mkfs;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

/**
 * A pod's named volumes ({@code pod create --volume NAME[:SIZE]}): each a sparse file in the pod's
 * directory, {@code volumes/NAME.img}, formatted ext4 on the host when the pod is created ({@link Mkfs#writable}), attached
 * read-write at every boot and mounted by the agent at {@link Volumes#guestPath} (Pod.AddVolume); a
 * container mounts one with {@code create --volume NAME:CTRPATH}, a bind mount in its spec. The files
 * are the record: the names are the files' names, the sizes their sizes, so pod.json holds nothing of
 * them. They stay across `pod stop` and `pod start` and go with `pod rm`.
 */
public final class PodVolumes {
    public static final String DIR = "volumes";
    public static final long DEFAULT_BYTES = 1L << 30;
    public static final long MIN_BYTES = 8L << 20;
    public static final long MAX_BYTES = 16L << 40;

    /** One volume as `pod create` was asked for it. */
    public record Request(String name, long bytes) {
    }

    /** One volume of a pod, with the disk serial its boot gives it. */
    public record Disk(String name, Path file, String serial) {
    }

    private PodVolumes() {
    }

    /** Parses {@code NAME[:SIZE]} values, refusing bad names, bad sizes and a name given twice. */
    public static List<Request> parse(List<String> values) throws VmException {
        List<Request> out = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        for (String value : values) {
            int colon = value.indexOf(':');
            String name = colon < 0 ? value : value.substring(0, colon);
            if (!Volumes.validName(name)) {
                throw new VmException("invalid --volume \"" + value + "\": \"" + name
                        + "\" is not a volume name (1-63 characters of [a-zA-Z0-9_.-], starting with a letter or digit)");
            }
            long bytes = DEFAULT_BYTES;
            if (colon >= 0) {
                bytes = Sizes.parse(value.substring(colon + 1), "--volume " + value);
                if (bytes < MIN_BYTES || bytes > MAX_BYTES) {
                    throw new VmException("invalid --volume \"" + value + "\": a volume is " + Sizes.format(MIN_BYTES)
                            + " to " + Sizes.format(MAX_BYTES));
                }
            }
            if (!seen.add(name)) {
                throw new VmException("invalid --volume \"" + value + "\": volume " + name + " is given twice");
            }
            out.add(new Request(name, bytes));
        }
        return out;
    }

    /** Makes the volumes' files (the pod's directory exists); on failure the caller removes the pod. */
    public static void make(Path podDir, List<Request> volumes) throws VmException {
        if (volumes.isEmpty()) {
            return;
        }
        try {
            Files.createDirectories(podDir.resolve(DIR));
        } catch (IOException e) {
            throw new VmException("cannot make " + podDir.resolve(DIR) + ": " + e.getMessage(), e);
        }
        for (Request v : volumes) {
            Mkfs.writable(file(podDir, v.name()), v.bytes(), "volume " + v.name());
        }
    }

    /** The volume's file; only ever built from a name that keeps to the rule (no '/', no ".."). */
    static Path file(Path podDir, String name) {
        if (!Volumes.validName(name)) {
            throw new IllegalArgumentException("invalid volume name \"" + name + "\"");
        }
        return podDir.resolve(DIR).resolve(name + ".img");
    }

    /** Whether the pod has a volume of this name (a name that breaks the rule has none). */
    public static boolean exists(Path podDir, String name) {
        return Volumes.validName(name) && Files.isRegularFile(file(podDir, name));
    }

    /** The pod's volumes in name order, each with its serial ("jrunc-vol-N", N its place in that order). */
    public static List<Disk> list(Path podDir) throws VmException {
        Path dir = podDir.resolve(DIR);
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        List<String> names;
        try (Stream<Path> files = Files.list(dir)) {
            names = files.map(p -> p.getFileName().toString()).filter(f -> f.endsWith(".img"))
                    .map(f -> f.substring(0, f.length() - 4)).filter(Volumes::validName).sorted().toList();
        } catch (IOException e) {
            throw new VmException("cannot list " + dir + ": " + e.getMessage(), e);
        }
        List<Disk> out = new ArrayList<>();
        for (int i = 0; i < names.size(); i++) {
            out.add(new Disk(names.get(i), file(podDir, names.get(i)), "jrunc-vol-" + i));
        }
        return out;
    }

    /**
     * qemu's arguments for the pod's volumes, attached at boot: raw, read-write, the host's page cache
     * with the guest's flushes honoured ({@code cache=writeback}: the data must outlive the VM), and
     * discards turned into holes, so space the guest frees goes back to the host.
     */
    public static List<String> qemuArgs(List<Disk> disks) {
        List<String> args = new ArrayList<>();
        for (int i = 0; i < disks.size(); i++) {
            Disk d = disks.get(i);
            args.addAll(List.of("-drive", "file=" + d.file() + ",if=none,id=vol" + i + ",format=raw,discard=unmap,cache=writeback",
                    "-device", "virtio-blk-pci,drive=vol" + i + ",serial=" + d.serial() + ",discard=on"));
        }
        return args;
    }
}
