package io.jrunc.shim.host;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** A task: its container in the runtime library's state root, its mounts, its init and execs. */
final class HostTask {
    final String id;
    /** The runtime library's state root of the task's containerd namespace. */
    final Path root;
    final Path bundle;
    final List<Path> mounts;
    final HostProcess init;
    final Map<String, HostProcess> execs = new ConcurrentHashMap<>();
    /** The OOM kills counted when the task was last looked at (an event is a counter that went up). */
    volatile long oomKills;

    HostTask(String id, Path root, Path bundle, List<Path> mounts, HostProcess init) {
        this.id = id;
        this.root = root;
        this.bundle = bundle;
        this.mounts = mounts;
        this.init = init;
    }
}
