package io.jrunc.shim.vm;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.jrunc.ttrpc.Code;
import io.jrunc.ttrpc.RpcException;
import io.jrunc.vm.VolumeFlag;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * A container's bundle as the guest can take it. The CRI plugin's specs bind host paths the guest
 * does not have: the sandbox's /etc/hosts, /etc/hostname and /etc/resolv.conf files, its /dev/shm
 * directory, kubelet's /dev/termination-log file, and the pod's volumes. Such binds are turned into
 * what the VM offers, and the rest of the config is left as containerd wrote it:
 *
 * <ul>
 * <li>/etc/hosts, /etc/hostname, /etc/resolv.conf: dropped; the agent binds the pod's own files there
 * (it binds them only where the spec mounts nothing);
 * <li>/dev/shm: a tmpfs of the container's own (the guest has no host directory to share it from; a
 * pod's containers do not share it, as they would under runc);
 * <li>/dev/termination-log: dropped (the file is on the host, and a file cannot be shared by
 * virtio-fs; the container writes its message into its own /dev);
 * <li>a host directory: shared by virtio-fs at the destination ({@code -v HOSTDIR:CTRPATH}, read-only
 * with {@code ro});
 * <li>any other host file: refused, naming the mount (only directories reach the VM).
 * </ul>
 *
 * A config that needs none of this is used from the bundle as it is; otherwise the rewritten config
 * is written to a directory of the back end's with {@code root.path} the bundle's rootfs, absolute.
 */
final class GuestBundle {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Set<String> POD_FILES = Set.of("/etc/hosts", "/etc/hostname", "/etc/resolv.conf");

    /** The bundle to create from, and the host directories to share with the container. */
    record Prepared(Path bundle, List<VolumeFlag.HostDirectory> shares, boolean rewritten) {
    }

    private GuestBundle() {
    }

    static Prepared prepare(Path bundle, Path rewriteDir) throws RpcException {
        ObjectNode config;
        try {
            config = (ObjectNode) JSON.readTree(bundle.resolve("config.json").toFile());
        } catch (IOException | ClassCastException e) {
            throw new RpcException(Code.INVALID_ARGUMENT, "bundle " + bundle + ": config.json does not parse: " + e.getMessage());
        }
        if (!(config.get("mounts") instanceof ArrayNode mounts)) {
            return new Prepared(bundle, List.of(), false);
        }
        List<VolumeFlag.HostDirectory> shares = new ArrayList<>();
        ArrayNode kept = JSON.createArrayNode();
        boolean changed = false;
        for (int i = 0; i < mounts.size(); i++) {
            JsonNode m = mounts.get(i);
            if (!bind(m)) {
                kept.add(m);
                continue;
            }
            changed = true;
            String destination = Path.of("/", m.path("destination").asText()).normalize().toString();
            Path source = Path.of(m.path("source").asText("/"));
            if (POD_FILES.contains(destination) || destination.equals("/dev/termination-log")) {
                continue;
            }
            if (destination.equals("/dev/shm")) {
                ObjectNode shm = kept.addObject().put("destination", "/dev/shm").put("type", "tmpfs").put("source", "shm");
                shm.putArray("options").add("nosuid").add("noexec").add("nodev").add("mode=1777").add("size=65536k");
                continue;
            }
            if (source.isAbsolute() && Files.isDirectory(source) && !destination.equals("/")) {
                boolean readOnly = false;
                for (JsonNode o : m.path("options")) {
                    readOnly |= o.asText().equals("ro");
                }
                shares.add(new VolumeFlag.HostDirectory(source, destination, readOnly));
                continue;
            }
            throw new RpcException(Code.INVALID_ARGUMENT, "mounts[" + i + "]: the bind of " + source + " at " + destination
                    + " cannot reach the VM: only host directories are shared into a pod");
        }
        if (!changed) {
            return new Prepared(bundle, List.of(), false);
        }
        config.set("mounts", kept);
        Path rootfs = bundle.resolve(config.path("root").path("path").asText("rootfs")).normalize();
        config.withObjectProperty("root").put("path", rootfs.toString());
        try {
            Files.createDirectories(rewriteDir);
            JSON.writeValue(rewriteDir.resolve("config.json").toFile(), config);
        } catch (IOException e) {
            throw new RpcException(Code.INTERNAL, "writing " + rewriteDir.resolve("config.json") + ": " + e.getMessage());
        }
        return new Prepared(rewriteDir, shares, true);
    }

    private static boolean bind(JsonNode m) {
        if (m.path("type").asText().equals("bind")) {
            return true;
        }
        for (JsonNode o : m.path("options")) {
            if (o.asText().equals("bind") || o.asText().equals("rbind")) {
                return true;
            }
        }
        return false;
    }
}
