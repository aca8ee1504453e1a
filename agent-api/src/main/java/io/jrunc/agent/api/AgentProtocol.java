package io.jrunc.agent.api;

import io.jrunc.agent.api.pb.GetVersionRequest;
import io.jrunc.agent.api.pb.GetVersionResponse;
import io.jrunc.ttrpc.Handler;
import java.util.Set;

/**
 * The version of the agent API that this code speaks, and the rule a client applies to an agent's.
 *
 * <p>A major is a schema package (jrunc.agent.v1): a client refuses an agent whose major it does not
 * know, since it cannot tell what any call would mean there. A minor only adds methods, messages or
 * fields to its major (agent.proto states the rules), so any minor is accepted: a newer agent's
 * additions go unused, and an older agent answers a method it lacks with UNIMPLEMENTED.
 */
public final class AgentProtocol {
    public static final int MAJOR = 1;
    /** Raised by every addition to jrunc/agent/v1/agent.proto. */
    public static final int MINOR = 8;

    /** The majors this client can speak. */
    public static final Set<Integer> KNOWN_MAJORS = Set.of(1);

    private AgentProtocol() {
    }

    /** The agent's answer to Version.Get, naming itself so. */
    public static GetVersionResponse version(String agent) {
        return GetVersionResponse.newBuilder().setMajor(MAJOR).setMinor(MINOR).setAgent(agent).build();
    }

    /** The agent's Version.Get handler. */
    public static Handler<GetVersionRequest, GetVersionResponse> versionHandler(String agent) {
        GetVersionResponse version = version(agent);
        return (context, request) -> version;
    }

    public static void requireKnown(GetVersionResponse version) throws IncompatibleAgentException {
        if (!KNOWN_MAJORS.contains(version.getMajor())) {
            throw new IncompatibleAgentException(version);
        }
    }
}
