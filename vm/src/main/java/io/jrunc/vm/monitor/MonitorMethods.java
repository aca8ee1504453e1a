package io.jrunc.vm.monitor;

import io.jrunc.agent.api.AgentMethods;
import io.jrunc.ttrpc.Method;
import io.jrunc.vm.monitor.pb.AddContainerRequest;
import io.jrunc.vm.monitor.pb.AddContainerResponse;
import io.jrunc.vm.monitor.pb.AwaitOutputRequest;
import io.jrunc.vm.monitor.pb.AwaitOutputResponse;
import io.jrunc.vm.monitor.pb.RemoveContainerRequest;
import io.jrunc.vm.monitor.pb.RemoveContainerResponse;
import io.jrunc.vm.monitor.pb.ShutdownRequest;
import io.jrunc.vm.monitor.pb.ShutdownResponse;
import io.jrunc.vm.monitor.pb.StartContainerRequest;
import io.jrunc.vm.monitor.pb.StartContainerResponse;
import io.jrunc.vm.monitor.pb.StatusRequest;
import io.jrunc.vm.monitor.pb.StatusResponse;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;

/** The monitor's own methods (monitor.proto), and the agent's that it passes through. */
public final class MonitorMethods {
    static final String SERVICE = "jrunc.monitor.v1.Monitor";

    public static final Method<StatusRequest, StatusResponse> STATUS =
            Method.of(SERVICE, "Status", StatusRequest.parser(), StatusResponse.parser());
    public static final Method<AddContainerRequest, AddContainerResponse> ADD_CONTAINER =
            Method.of(SERVICE, "AddContainer", AddContainerRequest.parser(), AddContainerResponse.parser());
    public static final Method<StartContainerRequest, StartContainerResponse> START_CONTAINER =
            Method.of(SERVICE, "StartContainer", StartContainerRequest.parser(), StartContainerResponse.parser());
    public static final Method<RemoveContainerRequest, RemoveContainerResponse> REMOVE_CONTAINER =
            Method.of(SERVICE, "RemoveContainer", RemoveContainerRequest.parser(), RemoveContainerResponse.parser());
    public static final Method<AwaitOutputRequest, AwaitOutputResponse> AWAIT_OUTPUT =
            Method.of(SERVICE, "AwaitOutput", AwaitOutputRequest.parser(), AwaitOutputResponse.parser());
    public static final Method<ShutdownRequest, ShutdownResponse> SHUTDOWN =
            Method.of(SERVICE, "Shutdown", ShutdownRequest.parser(), ShutdownResponse.parser());

    private MonitorMethods() {
    }

    /**
     * Every method of the agent's API (the constants of AgentMethods and its nested classes): the monitor
     * forwards each unchanged, so a method added to the schema is passed through without a change here.
     */
    public static List<Method<?, ?>> agentMethods() {
        List<Method<?, ?>> methods = new ArrayList<>();
        collect(AgentMethods.class, methods);
        for (Class<?> nested : AgentMethods.class.getClasses()) {
            collect(nested, methods);
        }
        return methods;
    }

    private static void collect(Class<?> holder, List<Method<?, ?>> into) {
        for (Field f : holder.getFields()) {
            if (Modifier.isStatic(f.getModifiers()) && f.getType() == Method.class) {
                try {
                    into.add((Method<?, ?>) f.get(null));
                } catch (IllegalAccessException e) {
                    throw new IllegalStateException(e);
                }
            }
        }
    }
}
