package io.jrunc.vm.spec;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.jrunc.vm.state.HostShare;
import java.util.List;

/**
 * A container's shared host directories in its spec: one mount each, {@code type: virtiofs} with the
 * share's tag as the source, which the guest's runtime mounts at the destination as it mounts any
 * filesystem (the agent only waits for the tag's device to appear). Appended after the bundle's
 * mounts, so a share lands on top of whatever the bundle mounts at or above its path. {@code nosuid}
 * and {@code nodev}: a file on the host gives no privilege in the container; {@code ro} for
 * {@code :ro}, which the guest's kernel enforces (EROFS).
 */
public final class ShareMounts {
    public static final String TYPE = "virtiofs";

    private ShareMounts() {
    }

    public static void add(ObjectNode config, List<HostShare> shares) {
        if (shares.stream().allMatch(HostShare::root)) {
            return;
        }
        JsonNode existing = config.get("mounts");
        ArrayNode mounts = existing instanceof ArrayNode a ? a : config.putArray("mounts");
        for (HostShare s : shares) {
            if (s.root()) {
                continue; // the root filesystem is the agent's to mount, not a spec mount
            }
            ObjectNode m = mounts.addObject();
            m.put("destination", s.containerPath()).put("type", TYPE).put("source", s.tag());
            m.putArray("options").add("nosuid").add("nodev").add(s.readOnly() ? "ro" : "rw");
        }
    }
}
