package io.jrunc.vm.spec;

import io.jrunc.agent.api.Volumes;
import io.jrunc.vm.VmException;
import java.nio.file.Path;

/**
 * One {@code -v|--volume NAME:CTRPATH[:ro|:rw]} of create and run that names a volume of the pod (a
 * SOURCE without '/'; an absolute one is a host directory, {@code VolumeFlag}): where the container
 * sees it and whether it may write. CTRPATH must be absolute and not /.
 */
public record PodVolumeMount(String name, String target, boolean readOnly) {
    static VmException bad(String text, String why) {
        return new VmException("invalid --volume \"" + text + "\": " + why);
    }

    /** Parses one flag's value, or one error line naming the flag and the value. */
    public static PodVolumeMount parse(String text) throws VmException {
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
        if (source.contains("/")) {
            throw bad(text, "a host directory must be an absolute path, and a volume name has no '/'");
        }
        if (!Volumes.validName(source)) {
            throw bad(text, "\"" + source + "\" is not a volume name (1-63 characters of [a-zA-Z0-9_.-], starting with a letter or digit)");
        }
        if (!target.startsWith("/")) {
            throw bad(text, "the container path \"" + target + "\" is not absolute");
        }
        if (Path.of(target).normalize().toString().equals("/")) {
            throw bad(text, "the container path cannot be /");
        }
        return new PodVolumeMount(source, target, readOnly);
    }
}
