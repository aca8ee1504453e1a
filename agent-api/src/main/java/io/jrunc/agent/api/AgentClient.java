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
    /** Whether closing this handle closes the connection: a {@link #lease} leaves it open. */
    private final boolean owner;

    private AgentClient(TtrpcClient client, GetVersionResponse version, boolean owner) {
        this.client = client;
        this.version = version;
        this.owner = owner;
    }

    public static AgentClient connect(ByteStream stream, ClientOptions options)
            throws RpcException, IncompatibleAgentException {
        TtrpcClient client = TtrpcClient.connect(stream, options);
        try {
            GetVersionResponse version = client.call(AgentMethods.VERSION, GetVersionRequest.getDefaultInstance(),
                    options.syncTimeout());
            AgentProtocol.requireKnown(version);
            return new AgentClient(client, version, true);
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

    /**
     * Another handle on this connection whose {@link #close} leaves the connection open, for a holder
     * that hands one connection to several users, each closing its own handle; the holder closes this one.
     */
    public AgentClient lease() {
        return new AgentClient(client, version, false);
    }

    /** Whether calls can still be made: the connection has not ended or been closed. */
    public boolean isOpen() {
        return client.isOpen();
    }

    @Override
    public void close() {
        if (owner) {
            client.close();
        }
    }
}
