package io.jrunc.runtime;

/**
 * The statuses a caller may see. runc never reports "creating": podman rejects any status outside
 * created|paused|running|stopped ("unrecognized status"), so neither do we.
 */
public enum Status {
    CREATED, RUNNING, PAUSED, STOPPED;

    public String wire() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
