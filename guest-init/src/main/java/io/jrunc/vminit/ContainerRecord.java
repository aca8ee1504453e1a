package io.jrunc.vminit;

import io.jrunc.agent.api.pb.v1.ContainerInfo;
import io.jrunc.agent.api.pb.v1.ContainerState;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** One container as the agent knows it: the guest is the source of truth for what runs. */
final class ContainerRecord {
    final String id;
    final String serial;
    final Path bundle;
    final List<Path> mounts;
    final long createdAt;
    volatile ManagedProcess init;
    volatile long startedAt;
    volatile boolean started;
    final Map<String, ExecEntry> execs = new ConcurrentHashMap<>();

    ContainerRecord(String id, String serial, Path bundle, List<Path> mounts) {
        this.id = id;
        this.serial = serial;
        this.bundle = bundle;
        this.mounts = mounts;
        this.createdAt = ManagedProcess.nowNanos();
    }

    ContainerState state() {
        if (init == null) {
            return ContainerState.CONTAINER_STATE_UNSPECIFIED;
        }
        if (init.exit.isDone()) {
            return ContainerState.CONTAINER_STATE_STOPPED;
        }
        return started ? ContainerState.CONTAINER_STATE_RUNNING : ContainerState.CONTAINER_STATE_CREATED;
    }

    /** Whether the container's cgroup is frozen (Pause): cgroup.events' "frozen 1", the kernel's word. */
    boolean frozen() {
        try {
            return java.nio.file.Files.readAllLines(CgroupSetup.ROOT.resolve(CgroupSetup.pathOf(id).substring(1)).resolve("cgroup.events"))
                    .contains("frozen 1");
        } catch (java.io.IOException e) {
            return false; // no cgroup (yet, or any more): nothing is frozen
        }
    }

    ContainerInfo info() {
        ContainerState state = state();
        ContainerInfo.Builder b = ContainerInfo.newBuilder().setId(id).setState(state).setRootfsSerial(serial)
                .setCreatedAtNanos(createdAt).setStartedAtNanos(startedAt);
        if (state == ContainerState.CONTAINER_STATE_STOPPED) {
            b.setExit(init.exit.join());
        } else if (init != null) {
            b.setPid(init.pid).setFrozen(frozen());
        }
        execs.forEach((execId, p) -> b.addExecIds(execId));
        return b.build();
    }
}
