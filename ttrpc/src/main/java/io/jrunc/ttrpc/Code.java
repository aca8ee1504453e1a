package io.jrunc.ttrpc;

/**
 * The status codes of gRPC (grpc/grpc doc/statuscodes.md), which ttRPC's Response.status carries: the
 * numbers are the wire values and must not change.
 */
public enum Code {
    OK(0),
    CANCELLED(1),
    UNKNOWN(2),
    INVALID_ARGUMENT(3),
    DEADLINE_EXCEEDED(4),
    NOT_FOUND(5),
    ALREADY_EXISTS(6),
    PERMISSION_DENIED(7),
    RESOURCE_EXHAUSTED(8),
    FAILED_PRECONDITION(9),
    ABORTED(10),
    OUT_OF_RANGE(11),
    UNIMPLEMENTED(12),
    INTERNAL(13),
    UNAVAILABLE(14),
    DATA_LOSS(15),
    UNAUTHENTICATED(16);

    private static final Code[] BY_VALUE = values();

    private final int value;

    Code(int value) {
        this.value = value;
    }

    public int value() {
        return value;
    }

    /** A code a newer peer may send that this side does not know reads as UNKNOWN, as gRPC does. */
    public static Code of(int value) {
        return value >= 0 && value < BY_VALUE.length ? BY_VALUE[value] : UNKNOWN;
    }
}
