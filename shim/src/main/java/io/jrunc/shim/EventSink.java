package io.jrunc.shim;

import com.google.protobuf.Message;

/** Where ordered events go: the publisher's queue (or a test's list). Must not block. */
@FunctionalInterface
public interface EventSink {
    void publish(String namespace, String topic, Message event);
}
