package io.jrunc.spec;

import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import java.time.Instant;
import java.util.Map;
import java.util.Objects;

/**
 * What {@code runc state} prints and {@code runc list --format json} lists (runc's {@code
 * containerState}): the OCI {@link State} fields in runc's order plus rootfs, creation time and owner.
 * Callers (containerd's go-runc, podman) parse this shape, so it lives here next to the OCI one.
 *
 * <p>Unlike {@link State}, every member but {@code annotations} is always written, as runc does:
 * {@code pid} is 0 for a stopped container and {@code owner} may be empty. Null strings are read as
 * empty, and empty annotations are dropped, matching Go's zero values and {@code omitempty}.
 *
 * @param created written as runc writes it, see {@link GoTime}.
 * @param owner user name owning the state directory; empty when unknown.
 */
public record RuncState(
        String ociVersion,
        String id,
        int pid,
        ContainerStatus status,
        String bundle,
        String rootfs,
        @JsonSerialize(using = GoTimeWriter.class) @JsonDeserialize(using = GoTimeReader.class)
        Instant created,
        Map<String, String> annotations,
        String owner) {

    public RuncState {
        ociVersion = Objects.requireNonNullElse(ociVersion, "");
        id = Objects.requireNonNullElse(id, "");
        Objects.requireNonNull(status, "status must be set");
        bundle = Objects.requireNonNullElse(bundle, "");
        rootfs = Objects.requireNonNullElse(rootfs, "");
        Objects.requireNonNull(created, "created must be set");
        annotations = annotations == null || annotations.isEmpty() ? null : Frozen.map(annotations);
        owner = Objects.requireNonNullElse(owner, "");
    }
}
