package io.jrunc.vm;

import io.jrunc.vm.state.HostShare;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;

/**
 * `create|run -v|--volume SOURCE:CTRPATH[:OPTIONS]`, as podman reads it: a SOURCE that begins with '/'
 * is a host directory, shared with the container through virtio-fs ({@link HostShare}); a SOURCE
 * without '/' names a volume of the pod; any other SOURCE (a relative path) is refused, because it
 * could be neither. Everything is checked here, before anything is made.
 */
public final class VolumeFlag {
    private VolumeFlag() {
    }

    /** A host directory: its real path (symlinks resolved), where the container sees it, read-only or not. */
    public record HostDirectory(Path hostPath, String containerPath, boolean readOnly) {
    }

    public static boolean isHostDirectory(String value) {
        return value.startsWith("/");
    }

    /** Parses and checks a host directory value ({@link #isHostDirectory}); one error naming the flag. */
    public static HostDirectory hostDirectory(String value) throws VmException {
        String[] parts = value.split(":", -1);
        if (parts.length < 2 || parts.length > 3) {
            throw bad(value, "expected HOSTDIR:CTRPATH[:ro|rw]");
        }
        String source = parts[0];
        String target = parts[1];
        boolean readOnly = false;
        if (parts.length == 3) {
            switch (parts[2]) {
                case "ro" -> readOnly = true;
                case "rw" -> readOnly = false;
                default -> throw bad(value, "unknown option \"" + parts[2] + "\" (ro or rw)");
            }
        }
        if (!source.startsWith("/")) {
            throw bad(value, "the host directory must be an absolute path");
        }
        // virtiofsd takes the directory in a comma-separated -o list
        if (source.indexOf(',') >= 0) {
            throw bad(value, "a host directory whose path holds ',' cannot be shared");
        }
        if (!target.startsWith("/")) {
            throw bad(value, "the container path must be absolute");
        }
        if (normalize(target).equals("/")) {
            throw bad(value, "the container path cannot be /");
        }
        if (target.indexOf('\0') >= 0 || source.indexOf('\0') >= 0) {
            throw bad(value, "a path holds a NUL character");
        }
        Path dir = Path.of(source);
        if (!Files.isDirectory(dir)) {
            throw bad(value, Files.exists(dir, LinkOption.NOFOLLOW_LINKS) ? source + " is not a directory" : "no such directory " + source);
        }
        try {
            // the directory as it is now: a symlink swapped later changes nothing that was shared
            return new HostDirectory(dir.toRealPath(), normalize(target), readOnly);
        } catch (java.io.IOException e) {
            throw bad(value, "cannot resolve " + source + ": " + e.getMessage());
        }
    }

    /** A relative source that contains '/' names neither a pod volume nor a host directory. */
    public static void refuseRelativePath(String value) throws VmException {
        int colon = value.indexOf(':');
        String source = colon < 0 ? value : value.substring(0, colon);
        if (source.indexOf('/') >= 0) {
            throw bad(value, "a host directory must be an absolute path");
        }
    }

    private static String normalize(String target) {
        String n = Path.of(target).normalize().toString();
        return n.isEmpty() ? "/" : n;
    }

    private static VmException bad(String value, String why) {
        return new VmException("invalid --volume " + value + ": " + why);
    }
}
