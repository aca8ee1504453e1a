package io.jrunc.spec;

import java.util.List;

/**
 * What a runtime sends to the seccomp listener socket ({@code linux.seccomp.listenerPath}) together with
 * the notify fd (config-linux.md, Container Process State).
 *
 * @param fds names of the fds sent with SCM_RIGHTS, in order; {@code seccompFd} for the notify fd.
 * @param metadata {@code linux.seccomp.listenerMetadata}, passed through.
 */
public record ContainerProcessState(
        String ociVersion,
        List<String> fds,
        Integer pid,
        String metadata,
        State state) {

    /** The name of the seccomp notify fd in {@link #fds()}. */
    public static final String SECCOMP_FD_NAME = "seccompFd";

    public ContainerProcessState {
        fds = Frozen.list(fds);
    }
}
