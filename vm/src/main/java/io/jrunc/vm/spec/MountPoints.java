package io.jrunc.vm.spec;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.jrunc.vm.VmException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

/**
 * Mount points a {@code --read-only} root does not get. The guest's runtime creates a mount's
 * destination that the image lacks, as runc does (for a bundle's {@code root.readonly} too: runc makes
 * its mount points, then remounts the root read-only). {@code --read-only} asks that nothing be made in
 * the root, so such a mount is refused at create, before anything is made: every destination must
 * exist in the bundle's rootfs (resolved inside it: a symlink is followed as the container would see
 * it, never to the host's files) or lie under an earlier mount's destination, which that mount
 * provides (/dev/pts under a /dev tmpfs).
 */
public final class MountPoints {
    private static final int MAX_LINKS = 40;

    private MountPoints() {
    }

    /** Refuses, naming the first path, a mount whose destination would have to be made in the root. */
    public static void requireInImage(Bundle bundle, ObjectNode config) throws VmException {
        if (!(config.get("mounts") instanceof com.fasterxml.jackson.databind.node.ArrayNode mounts)) {
            return;
        }
        List<Path> earlier = new ArrayList<>();
        for (int i = 0; i < mounts.size(); i++) {
            JsonNode m = mounts.get(i);
            String destination = m.path("destination").asText("");
            if (!destination.startsWith("/")) {
                continue; // the guest's runtime refuses it, naming the field
            }
            Path dest = Path.of(destination).normalize();
            boolean covered = earlier.stream().anyMatch(e -> dest.startsWith(e) && !dest.equals(e));
            earlier.add(dest);
            if (covered || existsInRoot(bundle.rootfs(), dest.toString())) {
                continue;
            }
            throw new VmException(bundle.dir().resolve("config.json") + ": mounts[" + i + "]: the mount point " + dest
                    + " does not exist in the image and --read-only makes nothing in the root:"
                    + " create it in the rootfs, or drop --read-only");
        }
    }

    /** Whether {@code path} exists under {@code rootfs}, symlinks resolved inside it ({@code ..} stops at its top). */
    static boolean existsInRoot(Path rootfs, String path) {
        Deque<String> todo = new ArrayDeque<>(List.of(path.split("/")));
        List<String> resolved = new ArrayList<>();
        int links = 0;
        while (!todo.isEmpty()) {
            String c = todo.pollFirst();
            if (c.isEmpty() || c.equals(".")) {
                continue;
            }
            if (c.equals("..")) {
                if (!resolved.isEmpty()) {
                    resolved.removeLast();
                }
                continue;
            }
            Path here = rootfs;
            for (String r : resolved) {
                here = here.resolve(r);
            }
            here = here.resolve(c);
            if (Files.isSymbolicLink(here)) {
                if (++links > MAX_LINKS) {
                    return false;
                }
                String target;
                try {
                    target = Files.readSymbolicLink(here).toString();
                } catch (IOException e) {
                    return false;
                }
                if (target.startsWith("/")) {
                    resolved.clear();
                }
                List<String> parts = List.of(target.split("/"));
                for (int k = parts.size() - 1; k >= 0; k--) {
                    todo.addFirst(parts.get(k));
                }
                continue;
            }
            if (!Files.exists(here, LinkOption.NOFOLLOW_LINKS)) {
                return false;
            }
            resolved.add(c);
        }
        return true;
    }
}
