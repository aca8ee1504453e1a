package io.jrunc.shim.vm;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.jrunc.ttrpc.Code;
import io.jrunc.ttrpc.RpcException;
import io.jrunc.vm.Names;
import io.jrunc.vm.Sizes;
import io.jrunc.vm.VmException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * What a task's config.json says about its pod, read as containerd's CRI plugin writes it: whether
 * the task is a sandbox (its pod's first task, which boots the VM), which sandbox a container
 * belongs to, and, for a sandbox, the pod's size, swap area, hostname and network namespace.
 *
 * <ul>
 * <li>{@code io.kubernetes.cri.container-type}: {@code sandbox} boots a pod; {@code container} joins
 * the pod of {@code io.kubernetes.cri.sandbox-id}.
 * <li>Without it, {@code io.containerd.runc.v2.group} (what containerd's runc shim groups containers
 * by, one shim per group; `ctr run --annotation io.containerd.runc.v2.group=G`): the container joins
 * the group's pod, the group's first container booting it. Without either (a plain {@code ctr run})
 * the task is a container with a pod of its own.
 * <li>{@code io.jrunc.pod.memory}, {@code io.jrunc.pod.cpus}, {@code io.jrunc.pod.swap}: the pod's
 * memory, processors and swap area (sizes as jrunc-vm reads them: {@code 1g}, {@code 512m}).
 * <li>The network namespace's {@code path} in {@code linux.namespaces}, which the CRI plugin made and
 * CNI configured, is joined as jrunc-vm's {@code ns:PATH} network; none means user-mode networking.
 * </ul>
 *
 * @param sandboxKey  the pod this task belongs to (a sandbox's {@code io.kubernetes.cri.sandbox-id},
 *                    else its own id; a CRI container's sandbox id; a group's id; a lone container's id)
 * @param membership  how the task comes to its pod
 */
record PodPlan(String sandboxKey, Membership membership, int cpus, long memoryBytes, long swapBytes,
               String hostname, Path netns) {
    static final String CONTAINER_TYPE = "io.kubernetes.cri.container-type";
    static final String SANDBOX_ID = "io.kubernetes.cri.sandbox-id";
    static final String GROUP = "io.containerd.runc.v2.group";

    /** How a task comes to its pod; the pod's settings are those of the task that boots it. */
    enum Membership {
        /** A CRI sandbox: boots the pod and is the pod itself (no container runs for it). */
        SANDBOX,
        /** A CRI container: joins its sandbox's pod, which must be there. */
        MEMBER,
        /** A container of a containerd group: joins the group's pod, booting it when it is the first. */
        GROUP,
        /** A container of no pod or group: boots a pod of its own. */
        OWN
    }

    /** The task is a CRI sandbox: it is the pod itself, no container runs for it. */
    boolean sandbox() {
        return membership == Membership.SANDBOX;
    }
    static final String POD_MEMORY = "io.jrunc.pod.memory";
    static final String POD_CPUS = "io.jrunc.pod.cpus";
    static final String POD_SWAP = "io.jrunc.pod.swap";

    private static final ObjectMapper JSON = new ObjectMapper();

    static PodPlan read(String id, Path bundle) throws RpcException {
        JsonNode config;
        Path file = bundle.resolve("config.json");
        try {
            config = JSON.readTree(file.toFile());
        } catch (IOException e) {
            throw new RpcException(Code.INVALID_ARGUMENT, "bundle " + bundle + ": cannot read config.json: " + e.getMessage());
        }
        JsonNode annotations = config.path("annotations");
        String type = annotations.path(CONTAINER_TYPE).asText("");
        boolean sandbox = type.equals("sandbox");
        boolean member = type.equals("container");
        // a sandbox is known by its sandbox id (the CRI plugin gives it its own), a group by its id, a lone container by its id
        String given = annotations.path(SANDBOX_ID).asText("");
        String group = annotations.path(GROUP).asText("");
        Membership membership = sandbox ? Membership.SANDBOX : member ? Membership.MEMBER
                : group.isEmpty() ? Membership.OWN : Membership.GROUP;
        String key = switch (membership) {
            case SANDBOX -> given.isEmpty() ? id : given;
            case MEMBER -> given;
            case GROUP -> group;
            case OWN -> id;
        };
        if (member && key.isEmpty()) {
            throw new RpcException(Code.INVALID_ARGUMENT, "annotations: " + CONTAINER_TYPE + " container without " + SANDBOX_ID);
        }
        long memory;
        long swap;
        int cpus;
        try {
            memory = size(annotations, POD_MEMORY);
            swap = size(annotations, POD_SWAP);
            String c = annotations.path(POD_CPUS).asText("");
            cpus = c.isEmpty() ? 0 : Integer.parseInt(c);
            if (cpus < 0) {
                throw new NumberFormatException();
            }
        } catch (VmException e) {
            throw new RpcException(Code.INVALID_ARGUMENT, "annotations: " + e.getMessage());
        } catch (NumberFormatException e) {
            throw new RpcException(Code.INVALID_ARGUMENT, "annotations: " + POD_CPUS + " \"" + annotations.path(POD_CPUS).asText()
                    + "\" is not a whole number of processors");
        }
        Path netns = null;
        for (JsonNode ns : config.path("linux").path("namespaces")) {
            if (ns.path("type").asText().equals("network") && !ns.path("path").asText("").isEmpty()) {
                netns = Path.of(ns.path("path").asText());
            }
        }
        String hostname = config.path("hostname").asText("");
        try {
            hostname = hostname.isEmpty() ? null : Names.require(hostname, "hostname");
        } catch (VmException e) {
            hostname = null; // a name the pod cannot take: the pod's own
        }
        return new PodPlan(key, membership, cpus, memory, swap, hostname, netns);
    }

    private static long size(JsonNode annotations, String key) throws VmException {
        String v = annotations.path(key).asText("");
        return v.isEmpty() ? 0 : Sizes.parse(v, key);
    }

    /**
     * A name by jrunc-vm's rule (63 characters at most: containerd's ids are 64) for what the shim
     * knows by its containerd namespace and id: a prefix and a hash of both.
     */
    static String vmName(String prefix, String namespace, String id) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest((namespace + "/" + id).getBytes(StandardCharsets.UTF_8));
            return prefix + HexFormat.of().formatHex(digest, 0, 12);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
