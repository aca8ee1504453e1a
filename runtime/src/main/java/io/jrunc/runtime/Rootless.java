package io.jrunc.runtime;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Whether jrunc runs rootless, decided as runc decides it. Two facts matter:
 *
 * <ul>
 *   <li>{@link #unprivileged()}: the effective uid is not 0. Such a jrunc cannot create namespaces in
 *       its own JVM; create, run and exec re-execute it inside a new user namespace first
 *       ({@code io.jrunc.cli.UserNamespaceStage}).
 *   <li>{@link #cgroups()}: cgroup permission errors are expected (runc's rootless cgroup manager): true
 *       when the effective uid is not 0, and when it is 0 inside a user namespace other than the
 *       initial one (how podman runs its runtime when run by a user), unless {@code --rootless}
 *       says otherwise. Then a container without a cgroupsPath whose cgroup cannot be made runs
 *       without one, and limits that need it are refused ({@code io.jrunc.cgroups.Cgroup}).
 * </ul>
 *
 * <p>Set once per process by the command line ({@link #configure}); a library caller that never sets
 * it (the guest agent) gets the detection.
 */
public final class Rootless {
    private Rootless() {}

    private static volatile Boolean cgroupsFlag;

    /**
     * Applies the global {@code --rootless} flag: "auto" (or empty) detects; "true"/"false" and Go's
     * other boolean spellings force the cgroup rule.
     */
    public static void configure(String flag) {
        cgroupsFlag = parseBoolOrAuto(flag);
    }

    /** Go's strconv.ParseBool, with "" and "auto" (any case) meaning detect (null). */
    static Boolean parseBoolOrAuto(String s) {
        if (s == null || s.isEmpty() || s.equalsIgnoreCase("auto")) {
            return null;
        }
        return switch (s) {
            case "1", "t", "T", "TRUE", "true", "True" -> Boolean.TRUE;
            case "0", "f", "F", "FALSE", "false", "False" -> Boolean.FALSE;
            default -> throw new ContainerException("invalid value \"" + s
                    + "\" for flag -rootless: parse error (want true, false or auto)");
        };
    }

    /** The effective uid is not 0. */
    public static boolean unprivileged() {
        return effectiveUid() != 0;
    }

    /**
     * The effective uid from /proc/self/status (its "Uid:" line: real, effective, saved, filesystem),
     * read rather than asked of libc so that commands which make no native call stay that way.
     */
    public static long effectiveUid() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("Uid:")) {
                    return Long.parseLong(line.substring(4).trim().split("\\s+")[1]);
                }
            }
        } catch (IOException | RuntimeException e) {
            // no procfs: taken as root, whose commands then fail on what they cannot do
        }
        return 0;
    }

    /** Cgroup permission errors are expected (see the class comment). */
    public static boolean cgroups() {
        Boolean forced = cgroupsFlag;
        if (forced != null) {
            return forced;
        }
        return unprivileged() || inUserNamespace();
    }

    /**
     * Whether this process is in a user namespace other than the initial one: the initial one's
     * uid_map is the identity over every id ("0 0 4294967295"), as runc's userns.RunningInUserNS reads it.
     */
    public static boolean inUserNamespace() {
        try {
            String map = Files.readString(Path.of("/proc/self/uid_map")).trim();
            return !map.matches("0\\s+0\\s+4294967295");
        } catch (IOException e) {
            return false; // no procfs: runc treats it as the initial namespace too
        }
    }

    /**
     * The default state root, runc's rule: {@code $XDG_RUNTIME_DIR/jrunc} when XDG_RUNTIME_DIR is set
     * and the caller is not root in the initial user namespace (euid != 0, or euid 0 in a user
     * namespace unless USER is "root"); otherwise {@code /run/jrunc}, which an unprivileged user
     * usually cannot write, so its create then fails with permission denied, as runc's does.
     */
    public static Path defaultStateRoot() {
        String xdg = System.getenv("XDG_RUNTIME_DIR");
        if (xdg != null && !xdg.isEmpty() && honorsXdgRuntimeDir()) {
            return Path.of(xdg, "jrunc");
        }
        return ContainerDirectory.DEFAULT_ROOT;
    }

    private static boolean honorsXdgRuntimeDir() {
        if (unprivileged()) {
            return true;
        }
        if (!inUserNamespace()) {
            return false; // the real root keeps /run/jrunc, whatever /run/user/0 says
        }
        return !"root".equals(System.getenv("USER"));
    }
}
