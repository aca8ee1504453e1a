package io.jrunc.vminit;

import java.io.FileInputStream;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Small kernel files (cgroup and /proc entries) read and taken apart the short way: opened, read into a
 * byte array, closed, taken as ASCII, and split by hand. The figures calls (Stats, Pod Stats) run
 * interpreted while a pod is young, and under emulation every bytecode costs several times what it
 * does on the host: java.nio.file's Files.exists and readString go through the file system provider, a
 * channel and a charset decoder for each file, and String.split on a regular expression compiles it
 * for each line. Ten cgroup files, interpreted on the host: 1.3 ms through Files, 0.3 ms this way.
 */
final class KernelFiles {
    private KernelFiles() {
    }

    /** The file's text, or null when it cannot be opened (absent: a controller the kernel lacks). */
    static String read(String path) throws IOException {
        FileInputStream in;
        try {
            in = new FileInputStream(path);
        } catch (FileNotFoundException e) {
            return null;
        }
        try (in) {
            byte[] buf = new byte[4096];
            int n = 0;
            for (int k; (k = in.read(buf, n, buf.length - n)) > 0; ) {
                n += k;
                if (n == buf.length) {
                    buf = Arrays.copyOf(buf, n * 2);
                }
            }
            return new String(buf, 0, n, StandardCharsets.ISO_8859_1);
        }
    }

    /**
     * {@code dir}'s file {@code name}, or null as {@link #read(String)}. The path is joined with
     * String.concat: a + on strings is linked at its first run by method handles, and the calls that
     * read figures are not all in the agent's AOT cache's training.
     */
    static String read(String dir, String name) throws IOException {
        return read(dir.concat("/").concat(name));
    }

    /** A file of one number, or null when absent or "max" (no limit). */
    static Long number(String dir, String name) throws IOException {
        String text = read(dir, name);
        if (text == null) {
            return null;
        }
        String v = text.trim();
        return v.equals("max") ? null : Long.parseLong(v);
    }

    /**
     * The number after {@code key} on the line it starts ("usage_usec 1234" in cpu.stat, "MemTotal:
     * 2030000 kB" in /proc/meminfo), 0 when no line starts with it.
     */
    static long field(String text, String key) {
        for (int at = 0; at < text.length(); ) {
            int end = text.indexOf('\n', at);
            if (end < 0) {
                end = text.length();
            }
            int after = at + key.length();
            if (after < end && text.startsWith(key, at) && text.charAt(after) == ' ') {
                List<String> words = words(text.substring(after, end));
                return words.isEmpty() ? 0 : Long.parseLong(words.get(0));
            }
            at = end + 1;
        }
        return 0;
    }

    /** The line's words, split at runs of spaces and tabs. */
    static List<String> words(String line) {
        List<String> words = new ArrayList<>();
        int start = -1;
        for (int i = 0; i <= line.length(); i++) {
            boolean blank = i == line.length() || line.charAt(i) == ' ' || line.charAt(i) == '\t';
            if (blank && start >= 0) {
                words.add(line.substring(start, i));
                start = -1;
            } else if (!blank && start < 0) {
                start = i;
            }
        }
        return words;
    }

    /** The text's lines, without their line feeds; none for an empty text. */
    static String[] lines(String text) {
        return text.isEmpty() ? new String[0] : text.split("\n");
    }
}
