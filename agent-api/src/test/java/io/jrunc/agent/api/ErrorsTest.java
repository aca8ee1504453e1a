package io.jrunc.agent.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrunc.agent.api.pb.v1.InspectContainerRequest;
import io.jrunc.agent.api.pb.v1.ListContainersRequest;
import io.jrunc.agent.api.pb.v1.ProcessRef;
import io.jrunc.agent.api.pb.v1.WaitRequest;
import io.jrunc.ttrpc.Code;
import io.jrunc.ttrpc.Method;
import io.jrunc.ttrpc.RpcException;
import io.jrunc.ttrpc.TtrpcClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A failed call carries a gRPC code and a message to the caller, and the connection goes on. */
class ErrorsTest {
    @TempDir
    Path dir;

    private static InspectContainerRequest inspect(String id) {
        return InspectContainerRequest.newBuilder().setId(id).build();
    }

    @Test
    void aHandlersCodeAndMessageReachTheCaller() throws Exception {
        try (TestAgent agent = TestAgent.onSocket(dir); AgentClient client = agent.client()) {
            RpcException e = assertThrows(RpcException.class,
                    () -> client.call(AgentMethods.Containers.INSPECT, inspect("missing-one")));
            assertEquals(Code.NOT_FOUND, e.code());
            assertEquals("container \"missing-one\" does not exist", e.getMessage());
            assertEquals("c1", client.call(AgentMethods.Containers.INSPECT, inspect("c1")).getContainer().getId());
        }
    }

    @Test
    void aHandlerBugIsInternalAndTheServerGoesOn() throws Exception {
        try (TestAgent agent = TestAgent.onSocket(dir); AgentClient client = agent.client()) {
            RpcException e = assertThrows(RpcException.class,
                    () -> client.call(AgentMethods.Containers.INSPECT, inspect("boom")));
            assertEquals(Code.INTERNAL, e.code());
            assertTrue(e.getMessage().contains("a handler bug"), e.getMessage());
            assertEquals("c2", client.call(AgentMethods.Containers.INSPECT, inspect("c2")).getContainer().getId());
        }
    }

    @Test
    void aMethodTheAgentDoesNotServeIsUnimplemented() throws Exception {
        try (TestAgent agent = TestAgent.onSocket(dir); AgentClient client = agent.client()) {
            RpcException e = assertThrows(RpcException.class,
                    () -> client.call(AgentMethods.Containers.LIST, ListContainersRequest.getDefaultInstance()));
            assertEquals(Code.UNIMPLEMENTED, e.code());
            assertEquals("unknown method List of service jrunc.agent.v1.Containers", e.getMessage());
            Method<ListContainersRequest, ListContainersRequest> elsewhere = Method.of("jrunc.agent.v9.Nothing", "List",
                    ListContainersRequest.parser(), ListContainersRequest.parser());
            e = assertThrows(RpcException.class, () -> client.call(elsewhere, ListContainersRequest.getDefaultInstance()));
            assertEquals(Code.UNIMPLEMENTED, e.code());
            assertEquals("unknown service jrunc.agent.v9.Nothing", e.getMessage());
        }
    }

    @Test
    void aCallWithoutAnAnswerInTimeIsDeadlineExceeded() throws Exception {
        try (TestAgent agent = TestAgent.onSocket(dir); AgentClient client = agent.client()) {
            CountDownLatch gate = new CountDownLatch(1);
            agent.waitGates.put("slow", gate);
            WaitRequest wait = WaitRequest.newBuilder().setProcess(ProcessRef.newBuilder().setContainerId("slow")).build();
            RpcException e = assertThrows(RpcException.class,
                    () -> client.call(AgentMethods.Processes.WAIT, wait, Duration.ofMillis(200)));
            assertEquals(Code.DEADLINE_EXCEEDED, e.code());
            gate.countDown();
            // The late answer is dropped; the next call gets its own.
            assertEquals("c3", client.call(AgentMethods.Containers.INSPECT, inspect("c3")).getContainer().getId());
        }
    }

    @Test
    void callsPendingWhenTheAgentGoesAreUnavailable() throws Exception {
        TestAgent agent = TestAgent.onSocket(dir);
        try (TtrpcClient client = TtrpcClient.connect(agent.connect(), TestAgent.CLIENT_OPTIONS)) {
            agent.waitGates.put("forever", new CountDownLatch(1));
            CompletableFuture<RpcException> pending = CompletableFuture.supplyAsync(() -> assertThrows(RpcException.class,
                    () -> client.call(AgentMethods.Processes.WAIT,
                            WaitRequest.newBuilder().setProcess(ProcessRef.newBuilder().setContainerId("forever")).build())));
            Thread.sleep(100);
            agent.close();
            assertEquals(Code.UNAVAILABLE, pending.get(5, TimeUnit.SECONDS).code());
            RpcException e = assertThrows(RpcException.class,
                    () -> client.call(AgentMethods.Containers.INSPECT, inspect("after")));
            assertEquals(Code.UNAVAILABLE, e.code());
        }
    }

    @Test
    void aRequestOverTheLimitIsRefusedBeforeSending() throws Exception {
        try (TestAgent agent = TestAgent.onSocket(dir); AgentClient client = agent.client()) {
            RpcException e = assertThrows(RpcException.class,
                    () -> client.call(AgentMethods.Containers.INSPECT, inspect("x".repeat(5 << 20))));
            assertEquals(Code.RESOURCE_EXHAUSTED, e.code());
            assertEquals("c4", client.call(AgentMethods.Containers.INSPECT, inspect("c4")).getContainer().getId());
        }
    }
}
