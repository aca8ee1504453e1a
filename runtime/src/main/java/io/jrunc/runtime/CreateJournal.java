package io.jrunc.runtime;

import io.jrunc.cgroups.Cgroup;
import io.jrunc.cgroups.CgroupException;
import io.jrunc.cgroups.CgroupLocation;
import io.jrunc.spec.JsonTree;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Map;
import java.util.TreeMap;

/**
 * What a create is about to make that outlives its JVM, recorded in ROOT/ID/creating.json before it is
 * made: the cgroup, in every hierarchy. A create killed at any moment (SIGKILL runs no undo) leaves at
 * most ROOT/ID with this file, a cgroup and the container's process waiting at the exec gate in it;
 * {@code delete --force ID} reads the file, kills what the cgroup holds, removes the cgroup and then
 * ROOT/ID. The FIFO lives in ROOT/ID, and mounts live in namespaces that die with their last process.
 * The file goes once state.json is written, which describes the same cgroup.
 */
final class CreateJournal {
    static final String FILE = "creating.json";

    private CreateJournal() {}

    /** Writes the cgroup's location, atomically (a reader sees all of it or nothing). */
    static void recordCgroup(Path dir, CgroupLocation location) {
        StringBuilder out = ContainerState.cgroupJson(new StringBuilder("{\"cgroup\":"), location).append('}');
        try {
            Path tmp = dir.resolve("." + FILE + ".tmp");
            Files.write(tmp, out.toString().getBytes(StandardCharsets.UTF_8));
            Files.move(tmp, dir.resolve(FILE), StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException("recording the cgroup in " + dir.resolve(FILE), e);
        }
    }

    /** Called once state.json holds everything. */
    static void done(Path dir) {
        try {
            Files.deleteIfExists(dir.resolve(FILE));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Undoes what a killed create recorded in {@code dir} (a container directory without state.json):
     * SIGKILL to every process of the cgroup, then the cgroup removed. Nothing recorded: nothing to do.
     */
    static void undo(Path dir) throws CgroupException {
        byte[] json;
        try {
            json = Files.readAllBytes(dir.resolve(FILE));
        } catch (NoSuchFileException e) {
            return;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Object parsed = JsonTree.parse(json);
        CgroupLocation recorded;
        try {
            recorded = ContainerState.cgroupFromJson(parsed instanceof Map<?, ?> m ? m.get("cgroup") : null);
        } catch (RuntimeException e) {
            throw new ContainerException("corrupt " + dir.resolve(FILE));
        }
        Map<String, String> present = new TreeMap<>();
        recorded.directories().forEach((k, v) -> {
            if (Files.isDirectory(Path.of(v))) {
                present.put(k, v);
            }
        });
        if (present.isEmpty()) {
            return; // killed before any directory was made
        }
        // Any non-empty part of a valid location is one: UNIFIED's only key is "", HYBRID takes any
        // subset of its hierarchies, LEGACY has no "" to lose.
        Cgroup cgroup = Cgroup.open(new CgroupLocation(recorded.mode(), present));
        cgroup.killAll(9);
        cgroup.destroy();
    }
}
