package io.jrunc.ttrpc;

import com.google.protobuf.Message;

/**
 * What the server runs for one method: a small function from the request to the response. It may block
 * (Wait, ReadOutput do): each call runs on its own virtual thread. Throwing {@link RpcException}
 * answers with its code and message; anything else answers INTERNAL and never reaches the connection.
 */
@FunctionalInterface
public interface Handler<Q extends Message, R extends Message> {
    R handle(CallContext context, Q request) throws RpcException, InterruptedException;
}
