package io.jrunc.agent.api;

import com.google.protobuf.Message;
import io.jrunc.agent.api.pb.GetVersionRequest;
import io.jrunc.agent.api.pb.GetVersionResponse;
import io.jrunc.ttrpc.ByteStream;
import io.jrunc.ttrpc.ClientOptions;
import io.jrunc.ttrpc.Method;
import io.jrunc.ttrpc.RpcException;
import io.jrunc.ttrpc.TtrpcClient;
import java.time.Duration;

/**
 * The host's connection to one agent: synchronised, its protocol version checked, then calls of
 * {@link AgentMethods}. Connecting refuses an agent whose major this client does not know, before any
 * other call is made.
 */
public final class AgentClient implements AutoCloseable {
    private final TtrpcClient client;
    private final GetVersionResponse version;

    private AgentClient(TtrpcClient client, GetVersionResponse version) {
        this.client = client;
        this.version = version;
    }

    public static AgentClient connect(ByteStream stream, ClientOptions options)
            throws RpcException, IncompatibleAgentException {
        TtrpcClient client = TtrpcClient.connect(stream, options);
        try {
            GetVersionResponse version = client.call(AgentMethods.VERSION, GetVersionRequest.getDefaultInstance(),
                    options.syncTimeout());
            AgentProtocol.requireKnown(version);
            return new AgentClient(client, version);
        } catch (RpcException | IncompatibleAgentException | RuntimeException e) {
            client.close();
            throw e;
        }
    }

    /** What the agent answered when connecting. */
    public GetVersionResponse agentVersion() {
        return version;
    }

    public <Q extends Message, R extends Message> R call(Method<Q, R> method, Q request) throws RpcException {
        return client.call(method, request);
    }

    public <Q extends Message, R extends Message> R call(Method<Q, R> method, Q request, Duration timeout)
            throws RpcException {
        return client.call(method, request, timeout);
    }

    @Override
    public void close() {
        client.close();
    }
}
