package io.jrunc.runtime.init;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;

/** Symlinks the runtime creates inside the container's root (targets are container paths). */
final class ScopedLinks {
    private ScopedLinks() {}

    static void link(Path at, String target) {
        try {
            if (!Files.exists(at, LinkOption.NOFOLLOW_LINKS)) {
                Files.createSymbolicLink(at, Path.of(target));
            }
        } catch (IOException e) {
            throw new UncheckedIOException("symlink " + at, e);
        }
    }
}
