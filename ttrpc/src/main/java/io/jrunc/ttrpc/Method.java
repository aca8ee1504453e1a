package io.jrunc.ttrpc;

import com.google.protobuf.Message;
import com.google.protobuf.Parser;

/**
 * One method of a service: the names that route it (Request.service, Request.method) and how its
 * request and response messages are read. The same constant serves the client (to call) and the
 * server (to register a handler), so the two cannot disagree on a name or a type.
 */
public record Method<Q extends Message, R extends Message>(
        String service, String name, Parser<Q> requestParser, Parser<R> responseParser) {

    public static <Q extends Message, R extends Message> Method<Q, R> of(
            String service, String name, Parser<Q> requestParser, Parser<R> responseParser) {
        return new Method<>(service, name, requestParser, responseParser);
    }

    /** "service/name", as gRPC writes a method's path (without the leading slash). */
    @Override
    public String toString() {
        return service + "/" + name;
    }
}
