package io.jrunc.runtime.init;

import io.jrunc.spec.LinuxIDMapping;
import io.jrunc.spec.User;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The host's ids behind a container's ids: its user namespace's uid and gid maps as the host sees
 * them. Whatever the runtime does from outside with the container's ids goes through here: the exec
 * FIFO's owner, the uid/gid a tmpfs root or a device node gets, and what /proc/PID/status must show
 * (the kernel shows the reader's ids, the host's). Without a user namespace every id is itself.
 */
public final class HostIds {
    /** One line of a map: {@code size} ids from {@code inside} are {@code host} on. */
    record Range(long inside, long host, long size) {}

    public static final HostIds IDENTITY = new HostIds(List.of(new Range(0, 0, 1L << 32)),
            List.of(new Range(0, 0, 1L << 32)));

    private final List<Range> uids;
    private final List<Range> gids;

    private HostIds(List<Range> uids, List<Range> gids) {
        this.uids = uids;
        this.gids = gids;
    }

    /** The maps of a new user namespace, as the config gives them. */
    public static HostIds of(List<LinuxIDMapping> uidMappings, List<LinuxIDMapping> gidMappings) {
        return new HostIds(ranges(uidMappings), ranges(gidMappings));
    }

    /**
     * The maps of the user namespace {@code pid} is in, read from the host's /proc: uid_map and gid_map
     * show the second column in the reader's user namespace when it is another (user_namespaces(7)), so
     * read by the runtime they give its ids, also for a namespace nested in another.
     */
    public static HostIds read(int pid) {
        Path proc = Path.of("/proc", Integer.toString(pid));
        try {
            // A reader in the same user namespace (a rootless runtime's stage) is shown the parent's
            // ids, which are not its own: to it the container's ids are its ids.
            if (Files.readSymbolicLink(proc.resolve("ns/user")).equals(Files.readSymbolicLink(Path.of("/proc/thread-self/ns/user")))) {
                return IDENTITY;
            }
        } catch (IOException e) {
            throw new UncheckedIOException(proc.resolve("ns/user").toString(), e);
        }
        return new HostIds(parse(proc.resolve("uid_map")), parse(proc.resolve("gid_map")));
    }

    /** The host uid of the container's {@code uid}, or -1 when the namespace does not map it. */
    public int uid(long uid) {
        return translate(uids, uid);
    }

    /** The host gid of the container's {@code gid}, or -1 when the namespace does not map it. */
    public int gid(long gid) {
        return translate(gids, gid);
    }

    /** Whether every id is itself (no user namespace of the container's own, or one mapping all ids). */
    public boolean identity() {
        return this == IDENTITY || (whole(uids) && whole(gids));
    }

    // compared by hand: a record's equals is bootstrapped at its first call, which costs a cold JVM
    private static boolean whole(List<Range> ranges) {
        if (ranges.size() != 1) {
            return false;
        }
        Range r = ranges.getFirst();
        return r.inside() == 0 && r.host() == 0 && r.size() >= 0xffffffffL;
    }

    /**
     * Refuses a process whose ids its user namespace does not map: setresuid and setgroups would fail
     * in the child, where a chain sees no failure. Named as the config names them.
     */
    public void requireMapped(User user, String where) {
        long uid = user == null || user.uid() == null ? 0 : user.uid();
        long gid = user == null || user.gid() == null ? 0 : user.gid();
        if (uid(uid) < 0) {
            throw new IllegalArgumentException(where + ".user.uid: " + uid + " is not mapped in the container's user namespace");
        }
        if (gid(gid) < 0) {
            throw new IllegalArgumentException(where + ".user.gid: " + gid + " is not mapped in the container's user namespace");
        }
        List<Long> extra = user == null || user.additionalGids() == null ? List.of() : user.additionalGids();
        for (int i = 0; i < extra.size(); i++) {
            if (gid(extra.get(i)) < 0) {
                throw new IllegalArgumentException(where + ".user.additionalGids[" + i + "]: " + extra.get(i)
                        + " is not mapped in the container's user namespace");
            }
        }
    }

    /**
     * The data of a filesystem the runtime mounts for the container, with ids the container's as the
     * config gives them: the runtime mounts from the host's user namespace, where the kernel reads
     * {@code uid=} and {@code gid=} as host ids. A tmpfs root without them would belong to the host's
     * root, which is nobody inside, so it gets the container root's host ids; a devpts's given ids (the
     * group of new ptys) are translated, its default (the opener's ids) is already right.
     *
     * @param where the config's field for errors ("mounts[3].options")
     */
    public String mountData(String type, String data, String where) {
        boolean tmpfs = type.equals("tmpfs");
        if (identity() || !(tmpfs || type.equals("devpts"))) {
            return data;
        }
        List<String> options = new ArrayList<>();
        boolean uidSet = false, gidSet = false;
        if (data != null && !data.isEmpty()) {
            for (String option : data.split(",")) {
                if (option.startsWith("uid=") || option.startsWith("gid=")) {
                    boolean isUid = option.startsWith("uid=");
                    long id;
                    try {
                        id = Long.parseLong(option.substring(4));
                    } catch (NumberFormatException e) {
                        throw new IllegalArgumentException(where + ": invalid option " + option);
                    }
                    int host = isUid ? uid(id) : gid(id);
                    if (host < 0) {
                        throw new IllegalArgumentException(where + ": " + option
                                + " is not mapped in the container's user namespace");
                    }
                    option = option.substring(0, 4) + Integer.toUnsignedString(host);
                    uidSet |= isUid;
                    gidSet |= !isUid;
                }
                options.add(option);
            }
        }
        if (tmpfs && !uidSet && uid(0) >= 0) {
            options.add("uid=" + Integer.toUnsignedString(uid(0)));
        }
        if (tmpfs && !gidSet && gid(0) >= 0) {
            options.add("gid=" + Integer.toUnsignedString(gid(0)));
        }
        return options.isEmpty() ? null : String.join(",", options);
    }

    private static int translate(List<Range> ranges, long id) {
        for (Range r : ranges) {
            if (id >= r.inside() && id - r.inside() < r.size()) {
                return (int) (r.host() + (id - r.inside()));
            }
        }
        return -1;
    }

    private static List<Range> ranges(List<LinuxIDMapping> mappings) {
        List<Range> ranges = new ArrayList<>();
        if (mappings != null) {
            for (LinuxIDMapping m : mappings) {
                ranges.add(new Range(m.containerID(), m.hostID(), m.size()));
            }
        }
        return List.copyOf(ranges);
    }

    private static List<Range> parse(Path map) {
        try {
            List<Range> ranges = new ArrayList<>();
            for (String line : Files.readAllLines(map)) {
                // by hand, not a regular expression: exec reads these on a cold JVM
                long[] f = new long[3];
                int n = 0;
                int at = 0;
                while (n < 3 && at < line.length()) {
                    while (at < line.length() && line.charAt(at) == ' ') {
                        at++;
                    }
                    int start = at;
                    while (at < line.length() && line.charAt(at) != ' ') {
                        at++;
                    }
                    if (at > start) {
                        f[n++] = Long.parseLong(line, start, at, 10);
                    }
                }
                if (n == 3) {
                    ranges.add(new Range(f[0], f[1], f[2]));
                }
            }
            return List.copyOf(ranges);
        } catch (IOException e) {
            throw new UncheckedIOException(map.toString(), e);
        }
    }
}
