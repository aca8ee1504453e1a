package io.jrunc.agent.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrunc.agent.api.pb.GetVersionResponse;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class VersionTest {
    @TempDir
    Path dir;

    @Test
    void aClientAcceptsTheMajorItKnows() throws Exception {
        try (TestAgent agent = TestAgent.onSocket(dir); AgentClient client = agent.client()) {
            assertEquals(AgentProtocol.MAJOR, client.agentVersion().getMajor());
            assertEquals(AgentProtocol.MINOR, client.agentVersion().getMinor());
            assertEquals(TestAgent.NAME, client.agentVersion().getAgent());
        }
    }

    @Test
    void aClientRefusesAMajorItDoesNotKnow() throws Exception {
        try (TestAgent agent = TestAgent.onSocket(dir, 2)) {
            IncompatibleAgentException e = assertThrows(IncompatibleAgentException.class, agent::client);
            assertEquals(2, e.version().getMajor());
            assertTrue(e.getMessage().contains("speaks protocol 2." + AgentProtocol.MINOR) && e.getMessage().contains("knows major 1"),
                    e.getMessage());
        }
    }

    @Test
    void anyMinorOfAKnownMajorIsAccepted() throws Exception {
        AgentProtocol.requireKnown(GetVersionResponse.newBuilder().setMajor(1).setMinor(99).build());
        assertThrows(IncompatibleAgentException.class,
                () -> AgentProtocol.requireKnown(GetVersionResponse.newBuilder().setMajor(0).build()));
    }
}
