package io.jrunc.runtime;

import io.jrunc.cgroups.CgroupLocation;
import io.jrunc.spec.Spec;
import java.util.Map;

/**
 * What jrunc persists for a container in ROOT/ID/state.json. Not a caller-facing format (callers use
 * `state`), but stable across jrunc versions of one release line.
 *
 * @param pid          the init process in the host's pid namespace
 * @param pidStartTime its start time (/proc/PID/stat field 22), which guards against pid reuse
 * @param created      RFC 3339 time of creation, as `state` prints it
 * @param config       the config the container was created from (hooks, process defaults for exec)
 */
public record ContainerState(String id, int pid, long pidStartTime, String bundle, String rootfs, String created,
        String owner, Map<String, String> annotations, Spec config, CgroupLocation cgroup) {}
