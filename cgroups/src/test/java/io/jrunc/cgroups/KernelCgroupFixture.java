package io.jrunc.cgroups;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * Real cgroups for a test, and their removal even when the test failed half way: processes the test
 * started are killed, this JVM's threads and process are moved home if a placement was left open, and
 * every directory named after the test is removed, in every hierarchy. Written independently of the
 * code under test, so that a bug there cannot hide a leak. A leak fails the test.
 */
final class KernelCgroupFixture implements AutoCloseable {
    final String name = "jrunc-test-" + UUID.randomUUID().toString().substring(0, 8);
    final CgroupHierarchies hierarchies;
    private final Map<String, Path> jvmHome = new HashMap<>();
    private final List<Process> processes = new ArrayList<>();
    private final Set<Path> directories = new LinkedHashSet<>();

    KernelCgroupFixture() throws Exception {
        hierarchies = CgroupHierarchies.current();
        for (Hierarchy hierarchy : hierarchies.hierarchies()) {
            jvmHome.put(hierarchy.key(), hierarchy.directoryOf(hierarchies.ownCgroup(hierarchy)));
            directories.add(hierarchy.mountPoint().resolve(name));
        }
    }

    static long currentThreadId() throws IOException {
        // /proc/thread-self -> "<pid>/task/<tid>"
        return Long.parseLong(Files.readSymbolicLink(Path.of("/proc/thread-self")).getFileName().toString());
    }

    /** hierarchy key -> cgroup path, from /proc/[pid]/cgroup or /proc/self/task/[tid]/cgroup. */
    static Map<String, String> cgroupsOf(Path procCgroupFile) throws Exception {
        Map<String, String> paths = new HashMap<>();
        for (CgroupMembership membership : CgroupMembership.read(procCgroupFile)) {
            paths.put(membership.hierarchyKey(), membership.path());
        }
        return paths;
    }

    Process start(String... command) throws IOException {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        processes.add(process);
        return process;
    }

    /** Also remove these directories at the end (cgroups made outside {@link #name}). */
    void track(CgroupLocation location) {
        location.directories().values().forEach(dir -> directories.add(Path.of(dir)));
    }

    @Override
    public void close() throws Exception {
        for (Process process : processes) {
            process.destroyForcibly();
            process.waitFor();
        }
        long self = ProcessHandle.current().pid();
        for (Path dir : directories) {
            for (Path cgroup : tree(dir)) {
                Hierarchy hierarchy = hierarchyOf(cgroup);
                Path home = jvmHome.get(hierarchy.key());
                if (!hierarchy.isUnified()) {
                    for (long tid : ids(cgroup.resolve("tasks"))) {
                        if (Files.exists(Path.of("/proc/self/task/" + tid))) {
                            Files.writeString(home.resolve("tasks"), Long.toString(tid), StandardOpenOption.WRITE);
                        }
                    }
                }
                for (long pid : ids(cgroup.resolve("cgroup.procs"))) {
                    if (pid == self) {
                        Files.writeString(home.resolve("cgroup.procs"), Long.toString(pid), StandardOpenOption.WRITE);
                    } else {
                        ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
                    }
                }
            }
        }
        List<Path> leaked = new ArrayList<>();
        for (Path dir : directories) {
            for (Path cgroup : tree(dir).reversed()) {
                if (!removeWithRetries(cgroup)) {
                    leaked.add(cgroup);
                }
            }
        }
        if (!leaked.isEmpty()) {
            throw new AssertionError("test cgroups could not be removed: " + leaked);
        }
    }

    private Hierarchy hierarchyOf(Path cgroup) {
        // The longest mount point wins: /sys/fs/cgroup/unified lies inside /sys/fs/cgroup on no host
        // where both are cgroup mounts, but be exact anyway.
        return hierarchies.hierarchies().stream()
                .filter(h -> cgroup.startsWith(h.mountPoint()))
                .max((a, b) -> Integer.compare(a.mountPoint().getNameCount(), b.mountPoint().getNameCount()))
                .orElseThrow();
    }

    /** dir and every directory below it, parents first; empty if dir does not exist. */
    private static List<Path> tree(Path dir) throws IOException {
        List<Path> all = new ArrayList<>();
        if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
            return all;
        }
        all.add(dir);
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
            for (Path entry : entries) {
                if (Files.isDirectory(entry, LinkOption.NOFOLLOW_LINKS)) {
                    all.addAll(tree(entry));
                }
            }
        }
        return all;
    }

    private static List<Long> ids(Path file) throws IOException {
        try {
            return Files.readAllLines(file).stream().filter(l -> !l.isBlank()).map(Long::parseLong).toList();
        } catch (NoSuchFileException e) {
            return List.of();
        }
    }

    private static boolean removeWithRetries(Path cgroup) throws InterruptedException {
        for (int attempt = 0; attempt < 50; attempt++) {
            try {
                Files.deleteIfExists(cgroup);
                return true;
            } catch (IOException e) {
                Thread.sleep(20);
            }
        }
        return false;
    }
}
