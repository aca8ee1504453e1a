package io.jrunc.vm;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.jrunc.agent.api.AgentClient;
import io.jrunc.agent.api.AgentMethods;
import io.jrunc.agent.api.pb.v1.UpdateContainerRequest;
import io.jrunc.spec.JsonNodes;
import io.jrunc.ttrpc.RpcException;
import io.jrunc.vm.spec.SpecBuilder;
import io.jrunc.vm.spec.SwapCaps;
import io.jrunc.vm.state.ContainerRecord;
import io.jrunc.vm.state.PodRecord;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * `jrunc-vm update`: a running container's memory limit and swap cap. The cap is swap alone, as at
 * create: the host turns it into the OCI memory+swap total against the memory limit in force (the
 * new one, else the one the container's config.json holds), and a memory change alone keeps the cap
 * (the total moves with it). The guest merges the change into what is in force and converts it with
 * the same code `jrunc update` runs (Containers.Update, docs/protocol.md). The container's config.json
 * on the host is then updated, so the next update reads the values in force.
 */
public final class ContainerUpdates {

    private final Containers containers;

    public ContainerUpdates(Containers containers) {
        this.containers = containers;
    }

    /**
     * @param memory the new limit, or null to keep it
     * @param swapCap the new cap (swap alone), or null to keep it
     */
    public void update(String name, Long memory, Long swapCap) throws VmException {
        if (memory == null && swapCap == null) {
            throw new VmException("update: nothing to change (give --memory and/or --swap)");
        }
        if (memory != null && memory <= 0) {
            throw new VmException("invalid --memory " + memory + ": must be positive");
        }
        ContainerRecord c = containers.require(name);
        PodRecord pod = containers.pods().require(c.pod());
        Path configFile = containers.pods().root().containerDir(c.pod(), name).resolve("config.json");
        ObjectNode config;
        try {
            config = (ObjectNode) JsonNodes.read(Files.readAllBytes(configFile));
        } catch (IOException | ClassCastException e) {
            throw new VmException("container " + name + ": cannot read " + configFile + ": " + e.getMessage(), e);
        }
        JsonNode stored = config.path("linux").path("resources").path("memory");
        long storedLimit = stored.path("limit").asLong(0);
        long storedTotal = stored.path("swap").asLong(0);
        long limit = memory != null ? memory : storedLimit;
        Long total = null;
        if (swapCap != null) {
            if (limit <= 0) {
                throw new VmException("--swap needs a memory limit: container " + name + " has none (give --memory too)");
            }
            total = SwapCaps.total(limit, swapCap);
        } else if (storedLimit > 0 && storedTotal >= storedLimit) {
            total = SwapCaps.total(limit, storedTotal - storedLimit); // the cap stays what it was
        }
        UpdateContainerRequest.Builder q = UpdateContainerRequest.newBuilder().setId(name);
        if (memory != null) {
            q.setMemoryLimit(memory);
        }
        if (total != null) {
            q.setMemorySwap(total);
        }
        try (AgentClient monitor = containers.pods().connectRunning(pod)) {
            monitor.call(AgentMethods.Containers.UPDATE, q.build(), Duration.ofSeconds(30));
        } catch (RpcException e) {
            throw new VmException("update " + name + ": " + e.getMessage(), e);
        }
        ObjectNode m = config.withObjectProperty("linux").withObjectProperty("resources").withObjectProperty("memory");
        m.put("limit", limit);
        if (total != null) {
            m.put("swap", total);
        }
        try {
            Files.write(configFile, SpecBuilder.toBytes(config));
        } catch (IOException e) {
            throw new VmException("container " + name + " updated, but " + configFile + " was not: " + e.getMessage(), e);
        }
    }
}
