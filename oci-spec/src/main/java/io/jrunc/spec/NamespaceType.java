package io.jrunc.spec;

import java.util.Optional;

/** The namespace types runtime-spec defines (config-linux.md, Namespaces), by their JSON names. */
public enum NamespaceType {
    PID("pid"),
    NETWORK("network"),
    MOUNT("mount"),
    IPC("ipc"),
    UTS("uts"),
    USER("user"),
    CGROUP("cgroup"),
    TIME("time");

    private final String jsonName;

    NamespaceType(String jsonName) {
        this.jsonName = jsonName;
    }

    /** The name used in config.json, e.g. {@code network}. */
    public String jsonName() {
        return jsonName;
    }

    /** The type a config.json name stands for; empty for names the spec does not define. */
    public static Optional<NamespaceType> fromJsonName(String name) {
        for (NamespaceType type : values()) {
            if (type.jsonName.equals(name)) {
                return Optional.of(type);
            }
        }
        return Optional.empty();
    }
}
