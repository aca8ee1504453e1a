package io.jrunc.spec;

import java.util.Map;

/**
 * The OCI state of a container (runtime.md, State; Go type {@code specs.State}): what hooks receive on
 * stdin and what the seccomp listener receives inside {@link ContainerProcessState}. The {@code runc
 * state} command prints a different, larger document: {@link RuncState}.
 *
 * @param pid host pid of the container process; absent (not 0) when there is none, as Go omits 0.
 * @param bundle absolute path of the bundle directory.
 */
public record State(
        String ociVersion,
        String id,
        ContainerStatus status,
        Integer pid,
        String bundle,
        Map<String, String> annotations) {

    public State {
        annotations = Frozen.map(annotations);
    }
}
