package io.jrunc.vm.monitor;

import io.jrunc.agent.api.AgentClient;
import io.jrunc.agent.api.AgentMethods;
import io.jrunc.agent.api.pb.v1.ContainerInfo;
import io.jrunc.agent.api.pb.v1.ContainerState;
import io.jrunc.agent.api.pb.v1.ProcessRef;
import io.jrunc.agent.api.pb.v1.WaitRequest;
import io.jrunc.ttrpc.RpcException;
import io.jrunc.vm.VmException;
import io.jrunc.vm.state.ContainerRecord;
import io.jrunc.vm.state.StateRoot;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.UnaryOperator;

/**
 * Keeps each container's state in its container.json while the pod runs, so that `ls` and `inspect`
 * read a file instead of asking the guest (a JVM that loads no protobuf or ttRPC class, and no round
 * trip through an emulated guest). The monitor sees every change: it starts the containers (running),
 * passes Pause and Resume on (paused, running), and holds a Wait in the guest for each started
 * container, whose answer is the exit (stopped, with its code). A monitor that starts on a running VM
 * (the one before it died) first brings the records up to date from the guest's List.
 *
 * <p>Every write is made under the container's lock, the one AddContainer and RemoveContainer hold, and
 * only to a container.json that exists: a removal's directory never comes back. Each start and removal
 * begins a new generation of the container; a Wait that answers for an older one writes nothing (the
 * exit of a run that a restart or a removal has since replaced).
 */
final class ContainerStates {
    private static final System.Logger LOG = System.getLogger(ContainerStates.class.getName());

    private final StateRoot root;
    private final String pod;
    private final AgentClient agent;
    private final ContainerLocks locks;
    private final Map<String, Long> generations = new ConcurrentHashMap<>();

    ContainerStates(StateRoot root, String pod, AgentClient agent, ContainerLocks locks) {
        this.root = root;
        this.pod = pod;
        this.agent = agent;
        this.locks = locks;
    }

    /** Started in the guest: running, and its exit awaited. */
    void started(String id) {
        long generation = next(id);
        try (ContainerLocks.Held held = locks.hold(id)) {
            change(id, c -> c.withState("running", 0));
        }
        awaitExit(id, generation);
    }

    /** Paused ({@code frozen}) or resumed in the guest: what a container that still runs now is. */
    void frozen(String id, boolean frozen) {
        try (ContainerLocks.Held held = locks.hold(id)) {
            change(id, c -> "running".equals(c.lastState()) || "paused".equals(c.lastState())
                    ? c.withState(frozen ? "paused" : "running", 0) : c);
        }
    }

    /** Removed from the guest (called under the container's lock): a Wait still to answer writes nothing. */
    void removed(String id) {
        next(id);
    }

    /**
     * What the guest's List says, for a monitor that starts on a running VM: a container that runs is
     * running (or paused) with its pid, and its exit is awaited; one that ended while no monitor ran
     * is stopped with its code.
     */
    void reconcile(ContainerInfo info) {
        String id = info.getId();
        if (info.getState() == ContainerState.CONTAINER_STATE_RUNNING) {
            long generation = next(id);
            String state = info.getFrozen() ? "paused" : "running";
            try (ContainerLocks.Held held = locks.hold(id)) {
                change(id, c -> state.equals(c.lastState()) && c.pid() == info.getPid() ? c : c.withState(state, 0).withPid(info.getPid()));
            }
            awaitExit(id, generation);
        } else if (info.getState() == ContainerState.CONTAINER_STATE_STOPPED && info.hasExit()) {
            try (ContainerLocks.Held held = locks.hold(id)) {
                change(id, c -> "running".equals(c.lastState()) || "paused".equals(c.lastState())
                        ? c.withState("stopped", info.getExit().getCode()) : c);
            }
        }
    }

    private long next(String id) {
        return generations.merge(id, 1L, Long::sum);
    }

    /**
     * The guest's Wait for the container's process, on a thread of its own, with no deadline: it
     * answers when the process ends, or fails when the agent's connection does (the VM stopping,
     * this monitor closing), which teaches nothing.
     */
    private void awaitExit(String id, long generation) {
        Thread.ofVirtual().name("exit-" + id).start(() -> {
            int code;
            try {
                code = agent.call(AgentMethods.Processes.WAIT, WaitRequest.newBuilder()
                        .setProcess(ProcessRef.newBuilder().setContainerId(id)).build(), Duration.ZERO).getStatus().getCode();
            } catch (RpcException e) {
                LOG.log(System.Logger.Level.DEBUG, "container " + id + ": no exit learned: " + e.getMessage());
                return;
            }
            try (ContainerLocks.Held held = locks.hold(id)) {
                if (generations.getOrDefault(id, 0L) == generation) {
                    change(id, c -> c.withState("stopped", code));
                }
            }
        });
    }

    /** The container's record changed by {@code how}, when it has one and the change changes it. */
    private void change(String id, UnaryOperator<ContainerRecord> how) {
        try {
            Optional<ContainerRecord> c = root.container(pod, id);
            if (c.isEmpty()) {
                return;
            }
            ContainerRecord changed = how.apply(c.get());
            if (!changed.equals(c.get())) {
                root.update(changed);
            }
        } catch (VmException e) {
            System.err.println("monitor: container " + id + ": its state was not recorded: " + e.getMessage());
        }
    }
}
