package io.jrunc.ttrpc;

import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import io.jrunc.ttrpc.pb.Request;
import io.jrunc.ttrpc.pb.Response;
import io.jrunc.ttrpc.pb.Status;
import java.util.HashMap;
import java.util.Map;

/**
 * Routes a ttRPC Request to the handler registered for its service and method. Handlers are
 * registered one method at a time, each next to the concern it drives, so that no file holds every
 * operation of the API. Registration happens before serving; dispatching is then read-only.
 */
public final class Dispatcher {
    private static final System.Logger LOG = System.getLogger(Dispatcher.class.getName());

    private interface Route {
        ByteString call(CallContext context, ByteString payload) throws RpcException, InterruptedException;
    }

    /**
     * Success is sent as a present status with code 0, as containerd's Go server does, rather than an
     * absent one; clients accept both.
     */
    private static final Status OK = Status.newBuilder().setCode(Code.OK.value()).build();

    private final Map<String, Map<String, Route>> services = new HashMap<>();

    public synchronized <Q extends Message, R extends Message> Dispatcher register(Method<Q, R> method, Handler<Q, R> handler) {
        Map<String, Route> methods = services.computeIfAbsent(method.service(), s -> new HashMap<>());
        if (methods.containsKey(method.name())) {
            throw new IllegalStateException(method + " registered twice");
        }
        methods.put(method.name(), (context, payload) -> {
            Q request;
            try {
                request = method.requestParser().parseFrom(payload);
            } catch (InvalidProtocolBufferException e) {
                throw new RpcException(Code.INVALID_ARGUMENT, "bad " + method + " request: " + e.getMessage());
            }
            R response = handler.handle(context, request);
            if (response == null) {
                throw new RpcException(Code.INTERNAL, method + " returned no response");
            }
            return response.toByteString();
        });
        return this;
    }

    /** Runs the call and returns its Response, a status for every failure: it never throws. */
    public Response dispatch(CallContext context, Request request) {
        try {
            Route route = route(request.getService(), request.getMethod());
            ByteString payload = route.call(context, request.getPayload());
            return Response.newBuilder().setStatus(OK).setPayload(payload).build();
        } catch (RpcException e) {
            return Response.newBuilder().setStatus(e.toStatus()).build();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return error(Code.CANCELLED, request.getService() + "/" + request.getMethod() + " interrupted");
        } catch (RuntimeException | Error e) {
            // The server outlives any handler's bug: the caller learns of it, the connection goes on.
            LOG.log(System.Logger.Level.ERROR, request.getService() + "/" + request.getMethod() + " failed", e);
            return error(Code.INTERNAL, request.getService() + "/" + request.getMethod() + ": " + e);
        }
    }

    private synchronized Route route(String service, String method) throws RpcException {
        Map<String, Route> methods = services.get(service);
        if (methods == null) {
            throw new RpcException(Code.UNIMPLEMENTED, "unknown service " + service);
        }
        Route route = methods.get(method);
        if (route == null) {
            throw new RpcException(Code.UNIMPLEMENTED, "unknown method " + method + " of service " + service);
        }
        return route;
    }

    static Response error(Code code, String message) {
        return Response.newBuilder().setStatus(new RpcException(code, message).toStatus()).build();
    }
}
