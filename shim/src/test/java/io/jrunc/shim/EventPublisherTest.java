package io.jrunc.shim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrunc.containerd.api.events.TaskExit;
import io.jrunc.containerd.api.services.events.Envelope;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The publisher while containerd is away: events published while nothing listens on its socket (a
 * containerd restarting) wait for the socket and arrive, in order, once a server listens there again,
 * long after the attempts for a failing call would have run out.
 */
@Timeout(value = 1, unit = TimeUnit.MINUTES)
class EventPublisherTest {
    @TempDir
    Path dir;

    @Test
    void eventsPublishedWhileNothingListensArriveWhenContainerdIsBack() throws Exception {
        Path socket = dir.resolve("events.sock");
        try (EventPublisher publisher = new EventPublisher("unix://" + socket, Duration.ofMillis(5))) {
            for (int i = 0; i < 3; i++) {
                publisher.publish("ns", "/tasks/exit", TaskExit.newBuilder().setContainerId("c" + i).setExitStatus(i).build());
            }
            // five failed calls 5, 10, 20, 40 ms apart would be over long before this
            Thread.sleep(1500);
            try (FakeEventsServer events = new FakeEventsServer(socket, 0)) {
                assertTrue(publisher.drain(Duration.ofSeconds(20)), "events still queued");
                List<String> ids = events.received().stream().map(EventPublisherTest::containerId).toList();
                assertEquals(List.of("c0", "c1", "c2"), ids);
            }
        }
    }

    private static String containerId(Envelope e) {
        try {
            return TaskExit.parseFrom(e.getEvent().getValue()).getContainerId();
        } catch (com.google.protobuf.InvalidProtocolBufferException ex) {
            throw new AssertionError(ex);
        }
    }
}
