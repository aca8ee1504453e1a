package io.jrunc.vm.spec;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.jrunc.agent.api.Volumes;
import io.jrunc.spec.JsonNodes;
import io.jrunc.vm.VmException;
import java.util.List;

/**
 * Turns a bundle's config.json into the config a container in a pod gets, field by
 * field:
 * <ul>
 * <li>linux.resources: the bundle's, with memory.limit replaced by --memory and cpu.quota/period by
 * --cpus (quota = cpus x period, period 100000 us, as podman writes --cpus); a --swap cap (swap
 * alone) written as memory.swap = memory limit + cap, the OCI total; a cap without a memory limit
 * refused;
 * <li>linux.namespaces: the network namespace removed, since a container uses the pod's network (the
 * guest's own); every other namespace passed through;
 * <li>hostname: the pod's (the pod holds the hostname its containers share);
 * <li>linux.sysctl: refused, since kernel parameters are the pod's (containers share one kernel);
 * <li>root: readonly is the bundle's, or true with --read-only; a root that is not read-only is
 * writable, an overlay over the image whose upper layer is the container's own disk (LayerImage);
 * root.path becomes "rootfs" (the guest mounts the image, the host path means nothing there);
 * <li>mounts: the bundle's, then one bind mount per pod volume the container mounts, from where the
 * agent mounted the volume ({@link Volumes#guestPath});
 * <li>process.args: replaced by the command line's CMD when one is given;
 * <li>everything else passed through unchanged.
 * </ul>
 */
public final class SpecBuilder {
    static final long CPU_PERIOD = 100_000;

    /**
     * What the command line and the pod decide. Null/zero/empty leaves the bundle's value; a negative
     * swap cap is none (the container may use the whole area).
     */
    public record Overrides(long memoryBytes, double cpus, List<String> args, String podHostname, long swapCapBytes,
                            boolean readOnly, List<PodVolumeMount> volumes) {
        public Overrides {
            volumes = volumes == null ? List.of() : List.copyOf(volumes);
        }

        public Overrides(long memoryBytes, double cpus, List<String> args, String podHostname, long swapCapBytes) {
            this(memoryBytes, cpus, args, podHostname, swapCapBytes, false, List.of());
        }

        public Overrides(long memoryBytes, double cpus, List<String> args, String podHostname) {
            this(memoryBytes, cpus, args, podHostname, -1);
        }
    }

    private SpecBuilder() {
    }

    public static ObjectNode build(Bundle bundle, Overrides o) throws VmException {
        ObjectNode config = bundle.config().deepCopy();
        ObjectNode linux = config.has("linux") && config.get("linux").isObject() ? (ObjectNode) config.get("linux") : null;

        if (linux != null) {
            JsonNode sysctl = linux.get("sysctl");
            if (sysctl != null && !sysctl.isNull() && !(sysctl.isObject() && sysctl.isEmpty())) {
                throw new VmException(bundle.dir().resolve("config.json")
                        + ": linux.sysctl is refused: kernel parameters belong to the pod (jrunc-vm pod create --sysctl)");
            }
            dropNetworkNamespace(config);
        }

        if (o.memoryBytes() > 0 || o.cpus() > 0) {
            if (linux == null) {
                linux = config.putObject("linux");
            }
            ObjectNode resources = object(linux, "resources");
            if (o.memoryBytes() > 0) {
                object(resources, "memory").put("limit", o.memoryBytes());
            }
            if (o.cpus() > 0) {
                ObjectNode cpu = object(resources, "cpu");
                cpu.put("quota", Math.round(o.cpus() * CPU_PERIOD));
                cpu.put("period", CPU_PERIOD);
            }
        }

        if (o.swapCapBytes() >= 0) {
            if (linux == null) {
                linux = config.putObject("linux");
            }
            ObjectNode memory = object(object(linux, "resources"), "memory");
            long limit = memory.path("limit").asLong(0);
            if (limit <= 0) {
                throw new VmException("--swap needs a memory limit: the cap is swap alone, read against it"
                        + " (give --memory, [container] memory in the config file, or linux.resources.memory.limit in "
                        + bundle.dir().resolve("config.json") + ")");
            }
            // the OCI field is the memory+swap total; the guest's runtime converts it back (SwapCaps)
            memory.put("swap", SwapCaps.total(limit, o.swapCapBytes()));
        }

        if (o.podHostname() != null && !o.podHostname().isEmpty()) {
            config.put("hostname", o.podHostname());
        }

        ObjectNode root = object(config, "root");
        root.put("path", "rootfs");
        if (o.readOnly()) {
            root.put("readonly", true);
        }
        if (!o.volumes().isEmpty()) {
            ArrayNode mounts = config.get("mounts") instanceof ArrayNode given ? given : config.putArray("mounts");
            for (PodVolumeMount v : o.volumes()) {
                mounts.addObject().put("destination", v.target()).put("type", "bind").put("source", Volumes.guestPath(v.name()))
                        .putArray("options").add("rbind").add(v.readOnly() ? "ro" : "rw");
            }
        }

        if (o.args() != null && !o.args().isEmpty()) {
            ArrayNode args = object(config, "process").putArray("args");
            o.args().forEach(args::add);
        }
        return config;
    }

    /** Removes a network namespace from the config's linux.namespaces: a pod's containers share the VM's network. */
    public static void dropNetworkNamespace(ObjectNode config) {
        if (config.path("linux").path("namespaces") instanceof ArrayNode list) {
            for (int i = list.size() - 1; i >= 0; i--) {
                if ("network".equals(list.get(i).path("type").asText())) {
                    list.remove(i);
                }
            }
        }
    }

    /** Whether the built config's root is writable (it then gets a layer). */
    public static boolean writable(ObjectNode config) {
        return !config.path("root").path("readonly").asBoolean(false);
    }

    public static byte[] toBytes(ObjectNode config) {
        return JsonNodes.write(config);
    }

    private static ObjectNode object(ObjectNode parent, String field) {
        JsonNode node = parent.get(field);
        if (node instanceof ObjectNode o) {
            return o;
        }
        return parent.putObject(field);
    }
}
