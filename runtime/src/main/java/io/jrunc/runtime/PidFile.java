package io.jrunc.runtime;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

/**
 * The pid file callers read after create/exec returns: written to ".NAME" beside it, synced, then
 * renamed, so a reader never sees a partial pid (runc utils_linux.go createPidFile).
 */
public final class PidFile {
    private PidFile() {}

    public static void write(Path file, int pid) {
        Path abs = file.toAbsolutePath();
        Path tmp = abs.resolveSibling("." + abs.getFileName());
        try {
            Files.write(tmp, Integer.toString(pid).getBytes(StandardCharsets.US_ASCII), StandardOpenOption.CREATE_NEW,
                    StandardOpenOption.WRITE, StandardOpenOption.SYNC);
            Files.move(tmp, abs, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            try {
                Files.deleteIfExists(tmp);
            } catch (IOException ignored) {
                // reported below
            }
            throw new UncheckedIOException("writing pid file " + file, e);
        }
    }
}
