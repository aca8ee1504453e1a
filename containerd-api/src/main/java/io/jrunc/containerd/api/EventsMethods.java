package io.jrunc.containerd.api;

import com.google.protobuf.Empty;
import io.jrunc.containerd.api.services.events.ForwardRequest;
import io.jrunc.ttrpc.Method;

/**
 * containerd's events service on its ttRPC socket ({@code containerd.services.events.ttrpc.v1.Events}),
 * typed: the shim's publisher calls it, tests serve it.
 */
public final class EventsMethods {
    private EventsMethods() {
    }

    public static final String SERVICE = "containerd.services.events.ttrpc.v1.Events";

    public static final Method<ForwardRequest, Empty> FORWARD =
            Method.of(SERVICE, "Forward", ForwardRequest.parser(), Empty.parser());
}
