package io.jrunc.spec;

import com.fasterxml.jackson.annotation.JsonValue;

/**
 * A container's status as reported in state documents (runtime.md, State). {@code paused} is runc's
 * addition; the spec allows runtimes to add values. Callers such as podman accept only created,
 * running, paused and stopped, so a runtime should never report {@link #CREATING}.
 */
public enum ContainerStatus {
    CREATING("creating"),
    CREATED("created"),
    RUNNING("running"),
    PAUSED("paused"),
    STOPPED("stopped");

    private final String jsonName;

    ContainerStatus(String jsonName) {
        this.jsonName = jsonName;
    }

    @JsonValue
    public String jsonName() {
        return jsonName;
    }
}
