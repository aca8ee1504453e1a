package io.jrunc.runtime.init;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Checks, from /proc/PID/status, that a process made by a {@link ChainSpawn} is what its steps were to
 * make it: a chain does not see its steps fail, so create and exec call this while the child waits at
 * the gate, and fail (killing it) on any difference, before the program could run.
 */
public final class ChildStatus {
    private ChildStatus() {}

    /** What the child must show; {@code seccompFilters} counts the filters it inherited plus its own. */
    public record Expected(int uid, int gid, int[] groups, ProcessCredentials.Sets caps, long bounding,
            boolean noNewPrivs, int seccompFilters) {}

    /**
     * What the child inherits from the runtime, read from /proc/self/status by the creating thread
     * while it still sees the host's /proc (the spawning thread's /proc is the container's by the time
     * it builds the chain): the signals the JVM catches or ignores (dispositions are per process), its
     * bounding set, no_new_privs and the filters it runs under itself.
     */
    public record Runtime(long handledSignals, long bounding, boolean noNewPrivs, int seccompFilters) {
        public static Runtime read() {
            Map<String, String> self = ChildStatus.read(Path.of("/proc/self/status"));
            return new Runtime(Long.parseUnsignedLong(self.get("SigCgt"), 16) | Long.parseUnsignedLong(self.get("SigIgn"), 16),
                    Long.parseUnsignedLong(self.get("CapBnd"), 16), "1".equals(self.get("NoNewPrivs")),
                    Integer.parseInt(self.getOrDefault("Seccomp_filters", "0")));
        }
    }

    /** For a child that loads one filter of its own. */
    public static Expected expected(ProcessCredentials credentials, Runtime runtime) {
        return expected(credentials, runtime, true);
    }

    /** For a chain's child, with or without a filter of its own ({@link ChildCgroupEntry} makes it without). */
    public static Expected expected(ProcessCredentials credentials, Runtime runtime, boolean ownFilter) {
        return expected(credentials, runtime, ownFilter, false, HostIds.IDENTITY);
    }

    /**
     * For a chain's child that may join a user namespace first: the host's /proc shows its ids as host
     * ids, and joining a user namespace gives the full bounding set (the kernel's set_cred_user_ns),
     * from which the chain drops what the process must not have.
     */
    public static Expected expected(ProcessCredentials credentials, Runtime runtime, boolean ownFilter,
            boolean joinsUserNamespace, HostIds ids) {
        int[] groups = credentials.additionalGids().clone();
        for (int i = 0; i < groups.length; i++) {
            groups[i] = ids.gid(Integer.toUnsignedLong(groups[i]));
        }
        long inherited = joinsUserNamespace ? fullSet() : runtime.bounding();
        return new Expected(ids.uid(Integer.toUnsignedLong(credentials.uid())),
                ids.gid(Integer.toUnsignedLong(credentials.gid())), groups, credentials.sets(),
                credentials.sets().bounding() & inherited, credentials.noNewPrivileges() || runtime.noNewPrivs(),
                runtime.seccompFilters() + (ownFilter ? 1 : 0));
    }

    /** Every capability this kernel has. */
    static long fullSet() {
        int last = io.jrunc.bindings.Capabilities.lastCap();
        return last >= 63 ? -1L : (1L << (last + 1)) - 1;
    }

    public static void verify(int pid, Expected e) {
        Map<String, String> s = read(Path.of("/proc", Integer.toString(pid), "status"));
        List<String> wrong = new ArrayList<>();
        String uid = Integer.toUnsignedString(e.uid()), gid = Integer.toUnsignedString(e.gid());
        same(wrong, s, "Uid", uid + "\t" + uid + "\t" + uid + "\t" + uid);
        same(wrong, s, "Gid", gid + "\t" + gid + "\t" + gid + "\t" + gid);
        int[] groups = e.groups().clone();
        Arrays.sort(groups);
        int[] seen = groups(s.getOrDefault("Groups", ""));
        if (!Arrays.equals(groups, seen)) {
            wrong.add("Groups is " + Arrays.toString(seen) + ", expected " + Arrays.toString(groups));
        }
        same(wrong, s, "CapInh", hex(e.caps().inheritable()));
        same(wrong, s, "CapPrm", hex(e.caps().permitted()));
        same(wrong, s, "CapEff", hex(e.caps().effective()));
        same(wrong, s, "CapBnd", hex(e.bounding()));
        same(wrong, s, "CapAmb", hex(e.caps().ambient()));
        same(wrong, s, "NoNewPrivs", e.noNewPrivs() ? "1" : "0");
        same(wrong, s, "Seccomp", e.seccompFilters() > 0 ? "2" : "0");
        same(wrong, s, "Seccomp_filters", Integer.toString(e.seccompFilters()));
        same(wrong, s, "SigBlk", hex(0));
        same(wrong, s, "SigIgn", hex(0));
        if (!wrong.isEmpty()) {
            throw new IllegalStateException("container process setup failed: " + String.join(", ", wrong));
        }
    }

    /**
     * /proc's Groups line, sorted: numbers separated by spaces. Read by hand: a stream pipeline and a
     * regular expression cost a cold JVM milliseconds on every create whose process has additional
     * groups (podman's configs list root's).
     */
    static int[] groups(String line) {
        int[] groups = new int[8];
        int count = 0;
        int at = 0;
        while (at < line.length()) {
            while (at < line.length() && Character.isWhitespace(line.charAt(at))) {
                at++;
            }
            int start = at;
            while (at < line.length() && !Character.isWhitespace(line.charAt(at))) {
                at++;
            }
            if (at > start) {
                if (count == groups.length) {
                    groups = Arrays.copyOf(groups, count * 2);
                }
                groups[count++] = Integer.parseInt(line, start, at, 10);
            }
        }
        groups = Arrays.copyOf(groups, count);
        Arrays.sort(groups);
        return groups;
    }

    private static void same(List<String> wrong, Map<String, String> status, String field, String expected) {
        String seen = status.get(field);
        if (!expected.equals(seen)) {
            wrong.add(field + " is " + seen + ", expected " + expected);
        }
    }

    /** As /proc shows a mask: 16 hex digits. Not String.format, whose first use costs a cold JVM a millisecond. */
    private static String hex(long mask) {
        String digits = Long.toHexString(mask);
        return "0".repeat(16 - digits.length()) + digits;
    }

    private static Map<String, String> read(Path status) {
        try {
            Map<String, String> fields = new HashMap<>();
            for (String line : Files.readAllLines(status)) {
                int colon = line.indexOf(':');
                if (colon > 0) {
                    fields.put(line.substring(0, colon), line.substring(colon + 1).trim());
                }
            }
            return fields;
        } catch (IOException e) {
            throw new UncheckedIOException(status.toString(), e);
        }
    }
}
