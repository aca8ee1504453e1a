package io.jrunc.vminit;

import io.jrunc.bindings.ErrnoException;
import io.jrunc.bindings.Errno;
import io.jrunc.bindings.FileDescriptors;
import io.jrunc.bindings.Machine;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

/**
 * Loads the kernel modules the image carries (/lib/modules/NAME.ko, put there by make vm-image) with
 * finit_module(2). Debian's kernel package has no modules.dep and the image has no kmod, so the order
 * comes from each module's own {@code depends=} modinfo field, which the image build reads and writes
 * to {@value #DEPENDS_FILE} beside the modules, one line per module ({@code NAME: DEP DEP}):
 * dependencies first. Reading that field here instead, by scanning the 1.6 MB of .ko files in Java,
 * cost 0.5-0.7 s of the boot under emulation. A module the kernel already has (built in, or loaded)
 * answers EEXIST, which is fine.
 */
final class KernelModules {
    private KernelModules() {}

    static final Path DIR = Path.of("/lib/modules");
    static final String DEPENDS_FILE = "depends";

    /**
     * The modules of the containers' disk bus (virtio-scsi and the SCSI disk driver): loaded after the
     * ready line, since no disk is added before the pod's first Create, and loading them takes about
     * 0.5 s under emulation (the console's line after ready says how long). A Create that comes sooner waits
     * for its disk as for any late one (RootDisks.find), which the driver's scan then finds.
     */
    static final Set<String> AFTER_READY = Set.of("scsi_common", "scsi_mod", "sd_mod", "virtio_scsi");

    /**
     * The balloon's driver, whose only use is free page reporting (the pages the guest frees go back
     * to the host): loaded well after the ready line ({@link VmInit}), since its first report covers
     * all of the guest's free memory and takes the vCPU for a while under emulation, which a pod's
     * first container need not share.
     */
    static final Set<String> IDLE = Set.of("virtio_balloon");

    /**
     * The vsock transport (the socket family, its virtio transport and the loopback one): loaded only
     * for a VM with a virtio-vsock device or a kernel command line that asks for the vsock check
     * ({@link VmInit}). A pod's VM here has neither (its host talks over the virtio-serial port), and
     * the four modules took the boot's module thread some 0.13 s under emulation.
     */
    static final Set<String> VSOCK = Set.of("vsock", "vmw_vsock_virtio_transport_common", "vmw_vsock_virtio_transport",
            "vsock_loopback");

    /**
     * Loads every module in {@link #DIR} but those {@link #AFTER_READY} and {@link #IDLE}, and those of
     * {@link #VSOCK} unless {@code vsock}; the names in the order loaded.
     */
    static List<String> loadAll(boolean vsock) throws IOException {
        return load(null, vsock);
    }

    /** Loads the modules of {@code set} ({@link #AFTER_READY}, {@link #IDLE}) after {@link #loadAll}; the names in the order loaded. */
    static List<String> loadOnly(Set<String> set) throws IOException {
        return load(set, false);
    }

    /**
     * Loads the modules of {@link #DIR} in dependency order: those of {@code only}, or with null all but
     * the later sets' (and the vsock ones unless {@code vsock}). The choice is a test, not a predicate
     * passed in: a lambda that the image's cache training never ran is spun at run time, on the boot's
     * module thread.
     */
    private static List<String> load(Set<String> only, boolean vsock) throws IOException {
        Map<String, List<String>> depends = new LinkedHashMap<>();
        if (!Files.isDirectory(DIR)) {
            return List.of();
        }
        Map<String, List<String>> listed = parseDepends(Files.readAllLines(DIR.resolve(DEPENDS_FILE)));
        try (Stream<Path> files = Files.list(DIR)) {
            for (Path ko : files.filter(p -> p.toString().endsWith(".ko")).sorted().toList()) {
                List<String> deps = listed.get(name(ko));
                if (deps == null) {
                    throw new IllegalStateException("module " + name(ko) + " has no line in " + DIR.resolve(DEPENDS_FILE));
                }
                depends.put(name(ko), deps);
            }
        }
        List<String> loaded = new ArrayList<>();
        for (String name : order(depends)) {
            boolean wanted = only != null ? only.contains(name)
                    : !AFTER_READY.contains(name) && !IDLE.contains(name) && (vsock || !VSOCK.contains(name));
            if (!wanted) {
                continue;
            }
            Path ko = DIR.resolve(name + ".ko");
            int fd = FileDescriptors.open(ko.toString(), FileDescriptors.O_RDONLY | FileDescriptors.O_CLOEXEC);
            try {
                Machine.finitModule(fd, "", ko.toString());
                loaded.add(name);
            } catch (ErrnoException e) {
                if (!e.is(Errno.EEXIST)) {
                    throw e;
                }
            } finally {
                FileDescriptors.close(fd);
            }
        }
        return loaded;
    }

    private static void visit(String name, Map<String, List<String>> depends, Set<String> order, Set<String> path) {
        if (order.contains(name)) {
            return;
        }
        if (!depends.containsKey(name)) {
            throw new IllegalStateException("module " + name + " is needed but not in " + DIR);
        }
        if (!path.add(name)) {
            throw new IllegalStateException("modules depend on each other in a cycle: " + path);
        }
        for (String dep : depends.get(name)) {
            visit(dep, depends, order, path);
        }
        order.add(name);
    }

    static String name(Path ko) {
        String file = ko.getFileName().toString();
        return file.substring(0, file.length() - 3).replace('-', '_');
    }

    /**
     * {@value #DEPENDS_FILE}'s lines, {@code NAME: DEP DEP} (no dependencies: {@code NAME:}), as a map
     * from name to dependencies, dashes in names read as underscores as the kernel does.
     */
    static Map<String, List<String>> parseDepends(List<String> lines) {
        Map<String, List<String>> depends = new LinkedHashMap<>();
        for (String line : lines) {
            if (line.isBlank()) {
                continue;
            }
            int colon = line.indexOf(':');
            if (colon <= 0) {
                throw new IllegalStateException("bad line in " + DEPENDS_FILE + ": " + line);
            }
            List<String> deps = new ArrayList<>();
            for (String d : line.substring(colon + 1).trim().split("\\s+")) {
                if (!d.isEmpty()) {
                    deps.add(d.replace('-', '_'));
                }
            }
            depends.put(line.substring(0, colon).trim().replace('-', '_'), deps);
        }
        return depends;
    }

    /** Names in dependency order (each after what it depends on); a missing dependency or a cycle is an error. */
    static List<String> order(Map<String, List<String>> depends) {
        Set<String> order = new LinkedHashSet<>();
        for (String name : depends.keySet()) {
            visit(name, depends, order, new LinkedHashSet<>());
        }
        return List.copyOf(order);
    }
}
