package io.jrunc.ttrpc;

import io.jrunc.ttrpc.pb.Status;

/**
 * A call that failed: a gRPC code and a message, as the server's Response.status carried them or as
 * the client decided locally (a timeout, a lost connection, a request too large to send). Handlers
 * throw it to answer with that code; any other exception a handler throws answers INTERNAL.
 */
public final class RpcException extends Exception {
    private final Code code;

    public RpcException(Code code, String message) {
        super(message);
        this.code = code;
    }

    public RpcException(Code code, String message, Throwable cause) {
        super(message, cause);
        this.code = code;
    }

    public Code code() {
        return code;
    }

    /** The status as it travels in a Response. */
    public Status toStatus() {
        return Status.newBuilder().setCode(code.value()).setMessage(String.valueOf(getMessage())).build();
    }

    public static RpcException of(Status status) {
        return new RpcException(Code.of(status.getCode()), status.getMessage());
    }

    @Override
    public String toString() {
        return code + ": " + getMessage();
    }
}
