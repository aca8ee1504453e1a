package io.jrunc.shim;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.google.protobuf.Message;
import io.jrunc.containerd.api.events.TaskCreate;
import io.jrunc.containerd.api.events.TaskExit;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The order rules one at a time, with a list as the sink. */
class EventOrderTest {
    private final List<String> seen = new ArrayList<>();
    private final List<Message> payloads = new ArrayList<>();
    private final EventOrder order = new EventOrder((ns, topic, event) -> {
        seen.add(ns + " " + topic);
        payloads.add(event);
    });

    private static ProcessExit exit(int status) {
        return new ProcessExit(42, status, Instant.ofEpochSecond(5));
    }

    private void create(String id) {
        order.created("ns", TaskCreate.newBuilder().setContainerId(id).setPid(42).build());
    }

    @Test
    void anExitDuringItsStartIsHeldUntilTheStartEvent() {
        create("c");
        order.starting("c", "");
        order.exited("c", "", exit(0));
        assertEquals(List.of("ns /tasks/create"), seen);
        order.started("c", "", 42);
        order.deleted("c", "", exit(0));
        assertEquals(List.of("ns /tasks/create", "ns /tasks/start", "ns /tasks/exit", "ns /tasks/delete"), seen);
        TaskExit e = (TaskExit) payloads.get(2);
        assertEquals("c", e.getId()); // the init is named by the container id, as runc's shim does
        assertEquals(42, e.getPid());
    }

    @Test
    void anExitOfACreatedTaskNeverStartedGoesAtOnce() {
        create("c");
        order.exited("c", "", exit(137));
        order.exited("c", "", exit(137)); // reported twice: published once
        order.deleted("c", "", exit(137));
        assertEquals(List.of("ns /tasks/create", "ns /tasks/exit", "ns /tasks/delete"), seen);
    }

    @Test
    void aDeleteWhoseExitNeverCamePublishesItFirst() {
        create("c");
        order.starting("c", "");
        order.started("c", "", 42);
        order.deleted("c", "", exit(3));
        order.exited("c", "", exit(3)); // late: stale, dropped
        assertEquals(List.of("ns /tasks/create", "ns /tasks/start", "ns /tasks/exit", "ns /tasks/delete"), seen);
        create("c"); // the id again: a new task, whose exit counts
        order.exited("c", "", exit(1));
        assertEquals("ns /tasks/exit", seen.getLast());
    }

    @Test
    void anExitBeforeTheCreateEventFollowsIt() {
        order.exited("c", "", exit(137));
        assertEquals(List.of(), seen);
        create("c");
        assertEquals(List.of("ns /tasks/create", "ns /tasks/exit"), seen);
    }

    @Test
    void execsHaveAddedStartedExitAndNoDelete() {
        create("c");
        order.execAdded("c", "e1");
        order.starting("c", "e1");
        order.exited("c", "e1", exit(6));
        order.started("c", "e1", 43);
        order.deleted("c", "e1", exit(6));
        assertEquals(List.of("ns /tasks/create", "ns /tasks/exec-added", "ns /tasks/exec-started", "ns /tasks/exit"), seen);
        assertEquals("e1", ((TaskExit) payloads.get(3)).getId());
    }

    @Test
    void aFailedStartPublishesNeitherStartNorItsExit() {
        create("c");
        order.execAdded("c", "e1");
        order.starting("c", "e1");
        order.exited("c", "e1", exit(127));
        order.startFailed("c", "e1");
        assertEquals(List.of("ns /tasks/create", "ns /tasks/exec-added"), seen);
    }
}
