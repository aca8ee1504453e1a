package io.jrunc.shim;

import java.util.List;
import java.util.Map;

/**
 * Which shim a container belongs to. containerd's runc shim groups containers by the
 * {@code io.containerd.runc.v2.group} annotation, then by the CRI plugin's
 * {@code io.kubernetes.cri.sandbox-id} (a pod's containers name their sandbox; the sandbox itself names
 * its own id); a container with neither has a shim of its own. This shim keeps the same rule, so that a
 * pod's containers, and in VM mode its VM, share one shim.
 */
public final class Grouping {
    private Grouping() {
    }

    public static final String GROUP_ANNOTATION = "io.containerd.runc.v2.group";
    public static final String SANDBOX_ID_ANNOTATION = "io.kubernetes.cri.sandbox-id";
    private static final List<String> KEYS = List.of(GROUP_ANNOTATION, SANDBOX_ID_ANNOTATION);

    /** The group id of container {@code id} with these annotations. */
    public static String groupId(String id, Map<String, String> annotations) {
        for (String key : KEYS) {
            String value = annotations.get(key);
            if (value != null && !value.isEmpty()) {
                return value;
            }
        }
        return id;
    }
}
