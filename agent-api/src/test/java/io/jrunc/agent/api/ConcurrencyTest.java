package io.jrunc.agent.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.jrunc.agent.api.pb.v1.InspectContainerRequest;
import io.jrunc.agent.api.pb.v1.ProcessRef;
import io.jrunc.agent.api.pb.v1.WaitRequest;
import io.jrunc.agent.api.pb.v1.WaitResponse;
import io.jrunc.ttrpc.RpcException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Many calls on one connection at once: each gets its own answer, whatever order they come back in. */
class ConcurrencyTest {
    @TempDir
    Path dir;

    private static WaitRequest wait(String container) {
        return WaitRequest.newBuilder().setProcess(ProcessRef.newBuilder().setContainerId(container)).build();
    }

    @Test
    void answersInReverseOrderReachTheirCalls() throws Exception {
        int calls = 24;
        try (TestAgent agent = TestAgent.onSocket(dir); AgentClient client = agent.client();
                ExecutorService callers = Executors.newVirtualThreadPerTaskExecutor()) {
            List<CountDownLatch> gates = new ArrayList<>();
            List<Future<WaitResponse>> answers = new ArrayList<>();
            for (int i = 0; i < calls; i++) {
                // Container ids of distinct lengths: the handler answers the id's length as the exit code.
                String id = "w".repeat(i + 1);
                CountDownLatch gate = new CountDownLatch(1);
                gates.add(gate);
                agent.waitGates.put(id, gate);
                answers.add(callers.submit(() -> client.call(AgentMethods.Processes.WAIT, wait(id))));
            }
            Thread.sleep(200);
            for (int i = calls - 1; i >= 0; i--) {
                gates.get(i).countDown();
                Thread.sleep(5);
            }
            for (int i = 0; i < calls; i++) {
                assertEquals(i + 1, answers.get(i).get(10, TimeUnit.SECONDS).getStatus().getCode());
            }
        }
    }

    @Test
    void manyThreadsShareOneClient() throws Exception {
        try (TestAgent agent = TestAgent.onSocket(dir); AgentClient client = agent.client();
                ExecutorService callers = Executors.newFixedThreadPool(8)) {
            List<Future<String>> answers = new ArrayList<>();
            for (int i = 0; i < 400; i++) {
                String id = "c" + i;
                answers.add(callers.submit(() -> client.call(AgentMethods.Containers.INSPECT,
                        InspectContainerRequest.newBuilder().setId(id).build()).getContainer().getId()));
            }
            for (int i = 0; i < answers.size(); i++) {
                assertEquals("c" + i, answers.get(i).get(10, TimeUnit.SECONDS));
            }
        }
    }

    @Test
    void aCallThatWaitsHoldsNothingElseUp() throws Exception {
        try (TestAgent agent = TestAgent.onSocket(dir); AgentClient client = agent.client()) {
            CountDownLatch gate = new CountDownLatch(1);
            agent.waitGates.put("blocked", gate);
            CompletableFuture<WaitResponse> blocked = CompletableFuture.supplyAsync(() -> {
                try {
                    return client.call(AgentMethods.Processes.WAIT, wait("blocked"));
                } catch (RpcException e) {
                    throw new AssertionError(e);
                }
            });
            for (int i = 0; i < 20; i++) {
                assertEquals("quick", client.call(AgentMethods.Containers.INSPECT,
                        InspectContainerRequest.newBuilder().setId("quick").build()).getContainer().getId());
            }
            assertFalse(blocked.isDone());
            gate.countDown();
            assertEquals("blocked".length(), blocked.get(10, TimeUnit.SECONDS).getStatus().getCode());
        }
    }
}
