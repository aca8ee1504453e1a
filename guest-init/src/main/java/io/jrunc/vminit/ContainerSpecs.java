package io.jrunc.vminit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.jrunc.spec.JsonNodes;
import io.jrunc.ttrpc.Code;
import io.jrunc.ttrpc.RpcException;
import java.io.IOException;
import java.util.List;
import java.util.Set;

/**
 * The OCI config as the agent runs it, from the config the host sent: the root is the disk the agent
 * mounted ({@code root.path} "rootfs"); the cgroup is the agent's choice (under the containers'
 * parent); the container gets its own mount, pid, ipc, uts and cgroup namespaces and the pod's network
 * (a network namespace entry is dropped); the hostname is the pod's once the pod has one, and so are
 * the resolver, hosts and hostname files, bound read-only at their own paths (a container cannot change
 * them for its neighbours) unless the config mounts something there itself. Kernel parameters are the
 * pod's alone: a linux.sysctl is refused.
 */
final class ContainerSpecs {
    private ContainerSpecs() {}

    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
    private static final List<String> OWN = List.of("mount", "pid", "ipc", "uts", "cgroup");

    /**
     * @param writable   the root is writable (root.readonly false or absent)
     * @param upperLayer the root needs an upper layer over the read-only disk: it is writable, or the
     *                   pod's files are bound into it, whose mount points the image may lack (a read-only
     *                   root is then made read-only again by the runtime, root.readonly)
     */
    record Rewritten(byte[] json, boolean writable, boolean upperLayer) {}

    static Rewritten rewrite(byte[] config, String id, String podHostname) throws RpcException {
        return rewrite(config, id, podHostname, List.of());
    }

    /** @param podFiles the pod's files (absolute paths in the agent's root), each bound at the same path */
    static Rewritten rewrite(byte[] config, String id, String podHostname, List<String> podFiles) throws RpcException {
        JsonNode tree;
        try {
            tree = JsonNodes.read(config); // the mapper's tree without the mapper: a first Create's cold start
        } catch (IOException e) {
            throw new RpcException(Code.INVALID_ARGUMENT, "oci_config: not JSON: " + e.getMessage().lines().findFirst().orElse(""));
        }
        if (!(tree instanceof ObjectNode spec)) {
            throw new RpcException(Code.INVALID_ARGUMENT, "oci_config: not a JSON object");
        }
        ObjectNode linux = spec.has("linux") && spec.get("linux").isObject() ? (ObjectNode) spec.get("linux")
                : spec.putObject("linux");
        JsonNode sysctl = linux.get("sysctl");
        if (sysctl != null && sysctl.isObject() && !sysctl.isEmpty()) {
            throw new RpcException(Code.INVALID_ARGUMENT, "linux.sysctl: kernel parameters are the pod's"
                    + " (containers share one kernel); set them on the pod");
        }
        ObjectNode root = spec.has("root") && spec.get("root").isObject() ? (ObjectNode) spec.get("root")
                : spec.putObject("root");
        boolean writable = !root.path("readonly").asBoolean(false);
        root.put("path", "rootfs");
        linux.put("cgroupsPath", CgroupSetup.pathOf(id));
        ArrayNode namespaces = NODES.arrayNode();
        Set<String> present = new java.util.HashSet<>();
        if (linux.get("namespaces") instanceof ArrayNode given) {
            for (JsonNode ns : given) {
                String type = ns.path("type").asText();
                if (type.equals("network")) {
                    continue; // the pod's network
                }
                if (OWN.contains(type)) {
                    namespaces.add(NODES.objectNode().put("type", type)); // new, never a path
                } else {
                    namespaces.add(ns);
                }
                present.add(type);
            }
        }
        for (String type : OWN) {
            if (!present.contains(type)) {
                namespaces.add(NODES.objectNode().put("type", type));
            }
        }
        linux.set("namespaces", namespaces);
        if (!podHostname.isEmpty()) {
            spec.put("hostname", podHostname);
        }
        boolean bound = false;
        if (!podFiles.isEmpty()) {
            ArrayNode mounts = spec.get("mounts") instanceof ArrayNode given ? given : spec.putArray("mounts");
            Set<String> taken = new java.util.HashSet<>();
            mounts.forEach(m -> taken.add(java.nio.file.Path.of("/", m.path("destination").asText()).normalize().toString()));
            for (String file : podFiles) {
                if (taken.add(file)) {
                    mounts.addObject().put("destination", file).put("type", "bind").put("source", file)
                            .putArray("options").add("bind").add("ro").add("nosuid").add("nodev").add("noexec");
                    bound = true;
                }
            }
        }
        return new Rewritten(JsonNodes.write(spec), writable, writable || bound);
    }
}
