package io.jrunc.runtime.init;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Deque;

/**
 * Resolves a path from a config (a mount destination, a masked path) inside the container's root as
 * if the root were "/": symlinks in the image are followed but can never lead out of it, and ".."
 * stops at the root. Without this an image holding {@code /etc -> /host/etc} could send a mount onto
 * the host (the class of bug runc's filepath-securejoin exists for).
 *
 * <p>Resolution happens during create, before any process of the container exists, so nothing inside
 * the container can swap a component between the check and the mount.
 */
public final class ScopedPath {
    private ScopedPath() {}

    private static final int MAX_SYMLINKS = 255;

    /** The host path that {@code unsafe} names inside {@code root}; missing components are kept as given. */
    public static Path resolve(Path root, String unsafe) {
        Deque<String> pending = new ArrayDeque<>();
        push(pending, unsafe);
        Deque<String> resolved = new ArrayDeque<>();
        int links = 0;
        while (!pending.isEmpty()) {
            String part = pending.pop();
            if (part.isEmpty() || part.equals(".")) {
                continue;
            }
            if (part.equals("..")) {
                resolved.pollLast();
                continue;
            }
            Path candidate = join(root, resolved).resolve(part);
            if (Files.isSymbolicLink(candidate)) {
                if (++links > MAX_SYMLINKS) {
                    throw new IllegalArgumentException("too many symlinks resolving " + unsafe);
                }
                String target;
                try {
                    target = Files.readSymbolicLink(candidate).toString();
                } catch (IOException e) {
                    throw new IllegalArgumentException("cannot read symlink " + candidate + ": " + e.getMessage(), e);
                }
                if (target.startsWith("/")) {
                    resolved.clear();
                }
                push(pending, target);
                continue;
            }
            resolved.addLast(part);
        }
        return join(root, resolved);
    }

    private static void push(Deque<String> pending, String path) {
        String[] parts = path.split("/");
        for (int i = parts.length - 1; i >= 0; i--) {
            pending.push(parts[i]);
        }
    }

    private static Path join(Path root, Deque<String> parts) {
        Path p = root;
        for (String part : parts) {
            p = p.resolve(part);
        }
        return p;
    }

}
