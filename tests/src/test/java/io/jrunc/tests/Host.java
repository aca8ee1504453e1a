package io.jrunc.tests;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/** What the host's kernel shows: mounts, processes. */
public final class Host {
    private Host() {}

    public static List<String> mountinfo() {
        String s = read(Path.of("/proc/self/mountinfo"));
        return s == null ? List.of() : s.lines().toList();
    }

    public static List<Long> pids() {
        List<Long> pids = new ArrayList<>();
        try (Stream<Path> s = Files.list(Path.of("/proc"))) {
            s.map(p -> p.getFileName().toString()).filter(n -> n.chars().allMatch(Character::isDigit))
                    .forEach(n -> pids.add(Long.parseLong(n)));
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        return pids;
    }

    /** True unless {@code pid} exists and is not a zombie. */
    public static boolean isZombieOrGone(long pid) {
        String stat = read(Path.of("/proc", Long.toString(pid), "stat"));
        if (stat == null) {
            return true;
        }
        char state = statFields(stat)[0].charAt(0);
        return state == 'Z' || state == 'X';
    }

    /**
     * The fields of a /proc/PID/stat text after the command name, which is in parentheses and may hold
     * spaces or parentheses itself: [0] is field 3 (state), [11] and [12] utime and stime, [16] nice.
     */
    public static String[] statFields(String stat) {
        return stat.substring(stat.lastIndexOf(')') + 2).trim().split(" ");
    }

    public static String comm(long pid) {
        String s = read(Path.of("/proc", Long.toString(pid), "comm"));
        return s == null ? "?" : s.strip();
    }

    /** The target of /proc/PID/ns/NAME, e.g. {@code pid:[4026532]}. */
    public static String namespace(long pid, String name) {
        try {
            return Files.readSymbolicLink(Path.of("/proc", Long.toString(pid), "ns", name)).toString();
        } catch (IOException e) {
            return null;
        }
    }

    /** The file's content, or null if it cannot be read (gone, say). */
    public static String read(Path p) {
        try {
            return Files.readString(p);
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }
}
