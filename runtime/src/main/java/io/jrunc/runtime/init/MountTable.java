package io.jrunc.runtime.init;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Reads the calling thread's mount table (/proc/thread-self/mountinfo: threads may differ). */
final class MountTable {
    private MountTable() {}

    /** The mount point of the mount that holds {@code path} (the longest mount point prefix). */
    static Path mountPointOf(Path path) {
        Path real;
        try {
            real = path.toRealPath();
            Path best = Path.of("/");
            for (String line : Files.readAllLines(Path.of("/proc/thread-self/mountinfo"))) {
                Path mountPoint = Path.of(unescape(line.split(" ")[4]));
                if (real.startsWith(mountPoint) && mountPoint.getNameCount() >= best.getNameCount()) {
                    best = mountPoint;
                }
            }
            return best;
        } catch (IOException e) {
            throw new UncheckedIOException("mountinfo for " + path, e);
        }
    }

    /** mountinfo escapes space, tab, newline and backslash as octal. */
    static String unescape(String field) {
        StringBuilder out = new StringBuilder(field.length());
        for (int i = 0; i < field.length(); i++) {
            char c = field.charAt(i);
            if (c == '\\' && i + 3 < field.length()) {
                out.append((char) Integer.parseInt(field.substring(i + 1, i + 4), 8));
                i += 3;
            } else {
                out.append(c);
            }
        }
        return out.toString();
    }
}
