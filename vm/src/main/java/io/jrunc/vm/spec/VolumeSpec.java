package io.jrunc.vm.spec;

import io.jrunc.agent.api.Volumes;
import io.jrunc.vm.VmException;
import java.nio.file.Path;

/**
 * One {@code -v|--volume} of create and run, told apart by its source as podman does: an absolute path
 * is a host directory, a name without '/' is one of the pod's volumes ({@code pod create --volume}).
 * {@code SOURCE:CTRPATH[:ro|:rw]}; CTRPATH must be absolute.
 */
public sealed interface VolumeSpec {
    /** Where the container sees it. */
    String target();

    boolean readOnly();

    /** A directory of the host shared with the container. */
    record HostDirectory(Path source, String target, boolean readOnly) implements VolumeSpec {
    }

    /** One of the pod's named volumes, shared by the containers that mount it. */
    record PodVolume(String name, String target, boolean readOnly) implements VolumeSpec {
    }

    static VmException bad(String text, String why) {
        return new VmException("invalid --volume \"" + text + "\": " + why);
    }

    /** Parses one flag's value, or one error line naming the flag and the value. */
    static VolumeSpec parse(String text) throws VmException {
        String[] parts = text.split(":", -1);
        if (parts.length < 2 || parts.length > 3) {
            throw bad(text, "expected NAME:CTRPATH or HOSTDIR:CTRPATH, with an optional :ro or :rw");
        }
        boolean readOnly = false;
        if (parts.length == 3) {
            switch (parts[2]) {
                case "ro" -> readOnly = true;
                case "rw" -> readOnly = false;
                default -> throw bad(text, "unknown option \"" + parts[2] + "\" (ro or rw)");
            }
        }
        String source = parts[0];
        String target = parts[1];
        if (!target.startsWith("/")) {
            throw bad(text, "the container path \"" + target + "\" is not absolute");
        }
        if (Path.of(target).normalize().toString().equals("/")) {
            throw bad(text, "the container path cannot be /");
        }
        if (source.startsWith("/")) {
            return new HostDirectory(Path.of(source), target, readOnly);
        }
        if (source.contains("/")) {
            throw bad(text, "a host directory must be an absolute path, and a volume name has no '/'");
        }
        if (!Volumes.validName(source)) {
            throw bad(text, "\"" + source + "\" is not a volume name (1-63 characters of [a-zA-Z0-9_.-], starting with a letter or digit)");
        }
        return new PodVolume(source, target, readOnly);
    }
}
