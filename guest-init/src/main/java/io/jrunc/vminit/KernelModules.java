package io.jrunc.vminit;

import io.jrunc.bindings.ErrnoException;
import io.jrunc.bindings.Errno;
import io.jrunc.bindings.FileDescriptors;
import io.jrunc.bindings.Machine;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
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
 * comes from each module's own {@code depends=} modinfo field (a NUL-terminated string in its
 * .modinfo section): dependencies first. A module the kernel already has (built in, or loaded)
 * answers EEXIST, which is fine.
 */
final class KernelModules {
    private KernelModules() {}

    static final Path DIR = Path.of("/lib/modules");

    /** Loads every module in {@link #DIR}; returns the names in the order loaded. */
    static List<String> loadAll() throws IOException {
        Map<String, List<String>> depends = new LinkedHashMap<>();
        if (!Files.isDirectory(DIR)) {
            return List.of();
        }
        try (Stream<Path> files = Files.list(DIR)) {
            for (Path ko : files.filter(p -> p.toString().endsWith(".ko")).sorted().toList()) {
                depends.put(name(ko), dependsOf(Files.readAllBytes(ko)));
            }
        }
        Set<String> order = new LinkedHashSet<>();
        for (String name : depends.keySet()) {
            visit(name, depends, order, new LinkedHashSet<>());
        }
        List<String> loaded = new ArrayList<>();
        for (String name : order) {
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

    /** The names in a module's {@code depends=} field (modinfo strings are NUL-separated). */
    static List<String> dependsOf(byte[] ko) {
        byte[] key = "depends=".getBytes(StandardCharsets.US_ASCII);
        outer:
        for (int i = 0; i + key.length <= ko.length; i++) {
            if (i > 0 && ko[i - 1] != 0) {
                continue;
            }
            for (int k = 0; k < key.length; k++) {
                if (ko[i + k] != key[k]) {
                    continue outer;
                }
            }
            int end = i + key.length;
            while (end < ko.length && ko[end] != 0) {
                end++;
            }
            String list = new String(ko, i + key.length, end - i - key.length, StandardCharsets.US_ASCII);
            List<String> names = new ArrayList<>();
            for (String n : list.split(",")) {
                if (!n.isBlank()) {
                    names.add(n.trim().replace('-', '_'));
                }
            }
            return names;
        }
        return List.of();
    }
}
