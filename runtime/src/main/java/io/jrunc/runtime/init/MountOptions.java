package io.jrunc.runtime.init;

import static io.jrunc.bindings.Mounts.*;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A mount entry's "options" split the way mount(8) and runc do: flags for mount(2), propagation changes
 * (applied by separate mount calls, as the kernel requires), and everything else joined into the data
 * string the filesystem parses ("mode=755,size=65536k").
 */
public record MountOptions(long flags, List<Long> propagation, String data, boolean recursiveBind, boolean copyUp,
        Idmap idmap) {

    /**
     * The runtime-spec's "idmap" and "ridmap" options, which are never passed to mount(2): the mount is
     * idmapped ({@link IdmappedBinds}), with "ridmap" its submounts too.
     */
    public enum Idmap { NONE, IDMAP, RIDMAP }

    private record Flag(boolean clear, long value) {}

    private static final Map<String, Flag> FLAGS = Map.ofEntries(
            Map.entry("async", new Flag(true, MS_SYNCHRONOUS)),
            Map.entry("atime", new Flag(true, MS_NOATIME)),
            Map.entry("bind", new Flag(false, MS_BIND)),
            Map.entry("defaults", new Flag(false, 0)),
            Map.entry("dev", new Flag(true, MS_NODEV)),
            Map.entry("diratime", new Flag(true, MS_NODIRATIME)),
            Map.entry("dirsync", new Flag(false, MS_DIRSYNC)),
            Map.entry("exec", new Flag(true, MS_NOEXEC)),
            Map.entry("mand", new Flag(false, MS_MANDLOCK)),
            Map.entry("noatime", new Flag(false, MS_NOATIME)),
            Map.entry("nodev", new Flag(false, MS_NODEV)),
            Map.entry("nodiratime", new Flag(false, MS_NODIRATIME)),
            Map.entry("noexec", new Flag(false, MS_NOEXEC)),
            Map.entry("nomand", new Flag(true, MS_MANDLOCK)),
            Map.entry("norelatime", new Flag(true, MS_RELATIME)),
            Map.entry("nostrictatime", new Flag(true, MS_STRICTATIME)),
            Map.entry("nosuid", new Flag(false, MS_NOSUID)),
            Map.entry("nosymfollow", new Flag(false, MS_NOSYMFOLLOW)),
            Map.entry("rbind", new Flag(false, MS_BIND | MS_REC)),
            Map.entry("relatime", new Flag(false, MS_RELATIME)),
            Map.entry("remount", new Flag(false, MS_REMOUNT)),
            Map.entry("ro", new Flag(false, MS_RDONLY)),
            Map.entry("rw", new Flag(true, MS_RDONLY)),
            Map.entry("strictatime", new Flag(false, MS_STRICTATIME)),
            Map.entry("suid", new Flag(true, MS_NOSUID)),
            Map.entry("sync", new Flag(false, MS_SYNCHRONOUS)),
            Map.entry("lazytime", new Flag(false, MS_LAZYTIME)),
            Map.entry("nolazytime", new Flag(true, MS_LAZYTIME)));

    private static final Map<String, Long> PROPAGATION = Map.of(
            "private", MS_PRIVATE, "rprivate", MS_PRIVATE | MS_REC,
            "slave", MS_SLAVE, "rslave", MS_SLAVE | MS_REC,
            "shared", MS_SHARED, "rshared", MS_SHARED | MS_REC,
            "unbindable", MS_UNBINDABLE, "runbindable", MS_UNBINDABLE | MS_REC);

    /** Parses {@code options}; {@code where} names the config field for error messages. */
    public static MountOptions parse(List<String> options, String where) {
        long flags = 0;
        List<Long> propagation = new ArrayList<>();
        List<String> data = new ArrayList<>();
        boolean copyUp = false;
        Idmap idmap = Idmap.NONE;
        if (options != null) {
            for (String option : options) {
                Flag flag = FLAGS.get(option);
                if (flag != null) {
                    flags = flag.clear() ? flags & ~flag.value() : flags | flag.value();
                } else if (PROPAGATION.containsKey(option)) {
                    propagation.add(PROPAGATION.get(option));
                } else if (option.equals("idmap")) {
                    idmap = idmap == Idmap.RIDMAP ? idmap : Idmap.IDMAP;
                } else if (option.equals("ridmap")) {
                    idmap = Idmap.RIDMAP;
                } else if (option.equals("tmpcopyup")) {
                    copyUp = true; // runc's extension: the new tmpfs starts with the image's content
                } else if (option.startsWith("r") && FLAGS.containsKey(option.substring(1))
                        && !option.equals("rw") && !option.equals("ro") && !option.equals("rbind")) {
                    // Recursive mount attributes (rro, rnosuid...) need mount_setattr(2).
                    throw new IllegalArgumentException(where + ": recursive option " + option + " is not supported yet");
                } else {
                    data.add(option);
                }
            }
        }
        return new MountOptions(flags, List.copyOf(propagation), String.join(",", data),
                (flags & (MS_BIND | MS_REC)) == (MS_BIND | MS_REC), copyUp, idmap);
    }

    /**
     * The flags the options ask to be cleared ("rw", "suid", "dev", "exec", "atime"...), as runc's
     * ClearedFlags: a bind mount is remounted when any is asked for, and a flag the kernel has locked
     * on the source cannot be cleared.
     */
    public static long clearedFlags(List<String> options) {
        long cleared = 0;
        if (options != null) {
            for (String option : options) {
                Flag flag = FLAGS.get(option);
                if (flag != null) {
                    cleared = flag.clear() ? cleared | flag.value() : cleared & ~flag.value();
                }
            }
        }
        return cleared;
    }

    public boolean isBind() {
        return (flags & MS_BIND) != 0;
    }

    /** Flags that need a second, remounting call on a bind mount (the kernel ignores them on MS_BIND). */
    public long remountFlags() {
        return flags & ~(MS_BIND | MS_REC | MS_REMOUNT);
    }
}
