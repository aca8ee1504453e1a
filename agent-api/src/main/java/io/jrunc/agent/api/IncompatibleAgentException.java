package io.jrunc.agent.api;

import io.jrunc.agent.api.pb.GetVersionResponse;

/** The agent speaks a protocol major this client does not know. */
public final class IncompatibleAgentException extends Exception {
    private final GetVersionResponse version;

    public IncompatibleAgentException(GetVersionResponse version) {
        super("the agent (" + (version.getAgent().isEmpty() ? "unnamed" : version.getAgent()) + ") speaks protocol "
                + version.getMajor() + "." + version.getMinor() + "; this client knows major "
                + AgentProtocol.KNOWN_MAJORS.stream().sorted().map(String::valueOf).reduce((a, b) -> a + ", " + b).orElseThrow()
                + " only: use a jrunc-vm that matches the VM image");
        this.version = version;
    }

    public GetVersionResponse version() {
        return version;
    }
}
